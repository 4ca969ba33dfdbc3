import Dispatch

/// A non-negative wait, in nanoseconds, or none at all: the one form every time operator turns
/// its `seconds:` or `DispatchTimeInterval` argument into before arming a timer.
///
/// Negative inputs count as zero; a wait too long to represent in nanoseconds (about 292
/// years), infinity and `.never` are ``never``, which arms no timer.
enum TimerSpan: Sendable, Equatable {
    /// No timer: the wait never ends.
    case never

    /// A wait of this many nanoseconds, zero or more.
    case nanoseconds(Int)

    /// The span for `seconds`, or `nil` when it is not a number.
    init?(seconds: Double) {
        guard !seconds.isNaN else { return nil }
        self.init(nanoseconds: seconds * 1_000_000_000)
    }

    /// The span for `nanoseconds`, clamped as the type describes; NaN counts as zero.
    init(nanoseconds: Double) {
        if !(nanoseconds > 0) {
            self = .nanoseconds(0)
        } else if nanoseconds >= Double(Int.max) {
            // `Double(Int.max)` is 2^63, so every smaller value converts without trapping.
            self = .never
        } else {
            self = .nanoseconds(Int(nanoseconds))
        }
    }

    /// The span for `interval`.
    init(_ interval: DispatchTimeInterval) {
        let count: Int
        let scale: Int
        switch interval {
        case .seconds(let value): (count, scale) = (value, 1_000_000_000)
        case .milliseconds(let value): (count, scale) = (value, 1_000_000)
        case .microseconds(let value): (count, scale) = (value, 1_000)
        case .nanoseconds(let value): (count, scale) = (value, 1)
        case .never:
            self = .never
            return
        }
        guard count > 0 else {
            self = .nanoseconds(0)
            return
        }
        let (product, overflow) = count.multipliedReportingOverflow(by: scale)
        self = overflow || product == Int.max ? .never : .nanoseconds(product)
    }

    /// The span for `duration`, clamped as the type describes.
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0, seconds > 0 || attoseconds > 0 else {
            self = .nanoseconds(0)
            return
        }
        let (whole, overflow) = Int(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        let (total, overflowAgain) = whole.addingReportingOverflow(Int(attoseconds / 1_000_000_000))
        self = overflow || overflowAgain || total == Int.max ? .never : .nanoseconds(total)
    }

    /// The span as a `DispatchTimeInterval`: `.never` or `.nanoseconds`.
    var interval: DispatchTimeInterval {
        switch self {
        case .never: return .never
        case .nanoseconds(let count): return .nanoseconds(count)
        }
    }

    /// The span as a number of nanoseconds; infinity for ``never``.
    var nanosecondsValue: Double {
        switch self {
        case .never: return .infinity
        case .nanoseconds(let count): return Double(count)
        }
    }
}
