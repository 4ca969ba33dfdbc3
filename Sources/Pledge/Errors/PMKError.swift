/// The errors Pledge itself rejects promises with.
///
/// Every case has a readable ``description`` (and the same ``debugDescription``), worded as
/// PromiseKit's (``badInput``'s names Pledge instead of PromiseKit). The cases and their meaning match PromiseKit's `PMKError`, except that
/// ``compactMap(_:_:)`` carries a `String` rendering of the value and the type, so that the error
/// stays `Sendable`, and that Pledge adds ``timedOut`` and ``validationFailed(_:_:)``.
public enum PMKError: Error, Sendable, Equatable {
    /// A completion handler was called with neither a value nor an error (`(nil, nil)`).
    case invalidCallingConvention

    /// A handler of `then` or `recover` returned the very promise that the call produced,
    /// which could never resolve.
    ///
    /// Only that direct case is detected (a guarantee in that case is reported with
    /// ``LogEvent/guaranteeReturnedSelf``). A longer cycle, such as a handler that returns a
    /// promise which itself waits for the call's promise, is not: both stay pending, as in
    /// PromiseKit.
    case returnedSelf

    /// A function was given input it cannot work with, such as `race` over an empty array or a
    /// concurrency limit below one.
    case badInput

    /// The operation was cancelled. `Error.isCancelled` is `true` for this error, and
    /// ``CatchPolicy/allErrorsExceptCancellation`` skips it.
    case cancelled

    /// The closure given to `compactMap` returned `nil`. Carries a rendering of the value it was
    /// given and the name of the type it was to produce, as PromiseKit's case carries the value
    /// and the type.
    case compactMap(_ value: String, _ type: String)

    /// `firstValue` or `lastValue` was asked for an element of an empty sequence.
    case emptySequence

    /// Every promise given to `race(fulfilled:)` rejected.
    case noWinner

    /// The thenable given to `timeout` did not settle in time.
    case timedOut

    /// The closure given to `validate` returned `false`. Carries a rendering of the value it
    /// rejected and of that value's type.
    case validationFailed(_ value: String, _ type: String)

    /// Makes a ``compactMap(_:_:)`` error for `value`, which could not become a `Target`.
    @inlinable
    public static func compactMapFailure<Value, Target>(_ value: Value, to _: Target.Type) -> PMKError {
        .compactMap(String(describing: value), String(describing: Target.self))
    }
}

extension PMKError: CustomStringConvertible, CustomDebugStringConvertible {
    /// What went wrong, in PromiseKit's words where PromiseKit has the case.
    ///
    /// Code that printed or compared PromiseKit's messages sees the same text: for example
    /// ``noWinner`` reads "All thenables passed to race(fulfilled:) were rejected".
    public var description: String {
        switch self {
        case .invalidCallingConvention:
            return "A closure was called with an invalid calling convention, probably (nil, nil)"
        case .returnedSelf:
            return "A promise handler returned itself"
        case .badInput:
            return "Bad input was provided to a Pledge function"
        case .cancelled:
            return "The asynchronous sequence was cancelled"
        case .compactMap(let value, let type):
            return "Could not `compactMap<\(type)>`: \(value)"
        case .emptySequence:
            return "The first or last element was requested for an empty sequence"
        case .noWinner:
            return "All thenables passed to race(fulfilled:) were rejected"
        case .timedOut:
            return "The thenable passed to timeout() did not settle in time"
        case .validationFailed(let value, let type):
            return "Could not `validate<\(type)>`: \(value)"
        }
    }

    /// The same text as ``description``, as PromiseKit's `debugDescription` is.
    public var debugDescription: String {
        description
    }
}

extension PMKError: CancellableError {
    /// `true` for ``cancelled``, `false` for every other case.
    public var isCancelled: Bool {
        self == .cancelled
    }
}
