import Dispatch

/// How long ``retry(attempts:backoff:clock:shouldRetry:_:file:line:)`` waits before each new attempt.
///
/// Three shapes: ``none`` (retry at once), ``constant(_:)-(DispatchTimeInterval)`` (the same wait every time) and
/// ``exponential(initial:multiplier:maximum:jitter:)-(DispatchTimeInterval,_,DispatchTimeInterval,_)`` (a wait that grows by a factor each time,
/// up to a maximum, optionally randomised). ``delay(beforeRetry:)`` says what a backoff waits
/// before a given retry.
///
/// A backoff never fails on odd input: a negative interval counts as zero, and ``delay(beforeRetry:)``
/// neither traps nor overflows however large the retry number or the multiplier.
///
/// ```swift
/// retry(attempts: 5, backoff: .exponential(initial: .milliseconds(100))) {
///     fetchFeed()
/// }.done { feed in … }
/// ```
public struct Backoff: Sendable {
    private enum Shape: Sendable {
        case none
        case constant(TimerSpan)
        case exponential(initial: TimerSpan, multiplier: Double, maximum: TimerSpan, jitter: Bool)
    }

    private let shape: Shape

    private init(_ shape: Shape) {
        self.shape = shape
    }

    /// No wait: each retry starts as soon as the attempt before it has failed (still not
    /// synchronously inside that failure; see
    /// ``retry(attempts:backoff:clock:shouldRetry:_:file:line:)``).
    public static let none = Backoff(.none)

    /// The same wait before every retry.
    ///
    /// ```swift
    /// retry(backoff: .constant(.seconds(1))) { ping() }
    /// ```
    ///
    /// - Parameter interval: The wait; a negative one counts as zero, and `.never` means that no
    ///   retry ever starts.
    /// - Returns: A backoff that waits `interval` before each retry.
    public static func constant(_ interval: DispatchTimeInterval) -> Backoff {
        Backoff(.constant(TimerSpan(interval)))
    }

    /// The same wait before every retry, as a `Duration`: ``constant(_:)-(DispatchTimeInterval)``'s
    /// twin, for code on Swift's clocks. Disfavoured, so that `.seconds(1)`, which both types
    /// spell, keeps meaning PromiseKit's `DispatchTimeInterval`.
    ///
    /// ```swift
    /// retry(backoff: .constant(Duration.milliseconds(500))) { ping() }
    /// ```
    ///
    /// - Parameter duration: The wait; a negative one counts as zero.
    /// - Returns: A backoff that waits `duration` before each retry.
    @_disfavoredOverload
    public static func constant(_ duration: Duration) -> Backoff {
        Backoff(.constant(TimerSpan(duration)))
    }

    /// A wait that grows geometrically: `initial` before the first retry, then `multiplier`
    /// times the previous wait, never more than `maximum`.
    ///
    /// With `jitter`, each wait is instead drawn uniformly at random from zero up to that value
    /// ("full jitter"), so that many clients that failed together do not all retry together. The
    /// wait before retry `n` is then anywhere in `0...min(initial * multiplier^(n-1), maximum)`.
    ///
    /// A `multiplier` that is not a number, or is negative, counts as 1 (a constant wait); one
    /// below 1 shrinks the wait; an infinite one jumps to `maximum` from the second retry on.
    ///
    /// ```swift
    /// // 0.1 s, 0.2 s, 0.4 s, 0.8 s, … up to 30 s, each randomised down.
    /// let backoff = Backoff.exponential(initial: .milliseconds(100), jitter: true)
    /// ```
    ///
    /// - Parameters:
    ///   - initial: The wait before the first retry (the second attempt).
    ///   - multiplier: The factor by which each wait exceeds the one before.
    ///   - maximum: The cap on any one wait; `.never` sets no cap.
    ///   - jitter: Whether to randomise each wait between zero and its computed value.
    /// - Returns: An exponential backoff.
    public static func exponential(
        initial: DispatchTimeInterval, multiplier: Double = 2, maximum: DispatchTimeInterval = .seconds(30),
        jitter: Bool = false
    ) -> Backoff {
        let factor = multiplier.isNaN || multiplier < 0 ? 1 : multiplier
        return Backoff(
            .exponential(
                initial: TimerSpan(initial), multiplier: factor, maximum: TimerSpan(maximum), jitter: jitter))
    }

    /// ``exponential(initial:multiplier:maximum:jitter:)-(DispatchTimeInterval,_,DispatchTimeInterval,_)``
    /// with `Duration`s, for code on Swift's clocks. Disfavoured, so that `.seconds(1)`, which
    /// both types spell, keeps meaning PromiseKit's `DispatchTimeInterval`.
    ///
    /// ```swift
    /// let backoff = Backoff.exponential(initial: Duration.milliseconds(100), maximum: .seconds(5))
    /// ```
    ///
    /// - Parameters:
    ///   - initial: The wait before the first retry (the second attempt); a negative one counts
    ///     as zero.
    ///   - multiplier: The factor by which each wait exceeds the one before.
    ///   - maximum: The cap on any one wait.
    ///   - jitter: Whether to randomise each wait between zero and its computed value.
    /// - Returns: An exponential backoff.
    @_disfavoredOverload
    public static func exponential(
        initial: Duration, multiplier: Double = 2, maximum: Duration = .seconds(30), jitter: Bool = false
    ) -> Backoff {
        let factor = multiplier.isNaN || multiplier < 0 ? 1 : multiplier
        return Backoff(
            .exponential(
                initial: TimerSpan(initial), multiplier: factor, maximum: TimerSpan(maximum), jitter: jitter))
    }

    /// The wait before retry `n`: `n == 1` is the wait before the second attempt.
    ///
    /// Returns `.nanoseconds(0)` for ``none`` and for any `n` below 1, and `.never` when the wait
    /// is endless (a `.never` interval with no cap) or too long to represent in nanoseconds (about
    /// 292 years). Every other result is in nanoseconds. With jitter, each call draws anew.
    ///
    /// ```swift
    /// Backoff.exponential(initial: .seconds(1)).delay(beforeRetry: 3)   // 4 seconds
    /// ```
    ///
    /// - Parameter n: Which retry: 1 for the first.
    /// - Returns: How long to wait before it.
    public func delay(beforeRetry n: Int) -> DispatchTimeInterval {
        span(beforeRetry: n).interval
    }

    /// ``delay(beforeRetry:)`` as the time operators take it.
    func span(beforeRetry n: Int) -> TimerSpan {
        guard n >= 1 else { return .nanoseconds(0) }
        switch shape {
        case .none:
            return .nanoseconds(0)
        case .constant(let span):
            return span
        case .exponential(let initial, let multiplier, let maximum, let jitter):
            let start = initial.nanosecondsValue
            // `0 * ∞` and `∞ * 0` would be NaN: a zero start stays zero whatever the growth, and
            // an endless start stays endless (then capped).
            let growth = Self.power(multiplier, n - 1)
            let grown = start == 0 || start.isInfinite ? start : start * growth
            var wait = Swift.min(grown.isNaN ? 0 : grown, maximum.nanosecondsValue)
            if jitter, wait.isFinite, wait > 0 {
                wait = Double.random(in: 0...wait)
            }
            return TimerSpan(nanoseconds: wait)
        }
    }

    /// `base` raised to `exponent` (at least 0) by squaring: at most 63 steps for any `Int`,
    /// saturating to infinity instead of overflowing. (Pledge does not import a math library.)
    private static func power(_ base: Double, _ exponent: Int) -> Double {
        var result = 1.0
        var square = base
        var remaining = exponent
        while remaining > 0 {
            if remaining & 1 == 1 { result *= square }
            remaining >>= 1
            if remaining > 0 { square *= square }
        }
        return result
    }
}
