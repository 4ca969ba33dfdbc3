/// The errors Pledge itself rejects promises with.
///
/// Every case has a readable ``description`` and ``debugDescription``. The cases and their
/// meaning match PromiseKit's `PMKError`, except that ``compactMap(_:_:)`` carries a `String`
/// rendering of the value and its type, so that the error stays `Sendable`.
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
    /// given and of that value's type.
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

    /// Makes a ``compactMap(_:_:)`` error that describes `value`.
    @inlinable
    public static func compactMapFailure<Value>(_ value: Value) -> PMKError {
        .compactMap(String(describing: value), String(reflecting: Value.self))
    }
}

extension PMKError: CustomStringConvertible, CustomDebugStringConvertible {
    /// A sentence saying what went wrong.
    public var description: String {
        switch self {
        case .invalidCallingConvention:
            return "A closure was called with an invalid calling convention: neither a value nor an error."
        case .returnedSelf:
            return "A handler returned the promise its own chain was waiting for, so it could never resolve."
        case .badInput:
            return "Bad input was provided to a Pledge function."
        case .cancelled:
            return "The operation was cancelled."
        case .compactMap(let value, let type):
            return "Could not compactMap the value \(value) of type \(type): the transform returned nil."
        case .emptySequence:
            return "The first or last element was requested for an empty sequence."
        case .noWinner:
            return "All thenables passed to race(fulfilled:) were rejected."
        case .timedOut:
            return "The operation timed out: it did not settle within the time allowed."
        case .validationFailed(let value, let type):
            return "The value \(value) of type \(type) failed validation: the check returned false."
        }
    }

    /// The ``description``, prefixed with the case name.
    public var debugDescription: String {
        switch self {
        case .invalidCallingConvention: return "PMKError.invalidCallingConvention: \(description)"
        case .returnedSelf: return "PMKError.returnedSelf: \(description)"
        case .badInput: return "PMKError.badInput: \(description)"
        case .cancelled: return "PMKError.cancelled: \(description)"
        case .compactMap: return "PMKError.compactMap: \(description)"
        case .emptySequence: return "PMKError.emptySequence: \(description)"
        case .noWinner: return "PMKError.noWinner: \(description)"
        case .timedOut: return "PMKError.timedOut: \(description)"
        case .validationFailed: return "PMKError.validationFailed: \(description)"
        }
    }
}

extension PMKError: CancellableError {
    /// `true` for ``cancelled``, `false` for every other case.
    public var isCancelled: Bool {
        self == .cancelled
    }
}
