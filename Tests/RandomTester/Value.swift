import Pledge

/// What the model knows of a value: the Swift values of the graph, without their types.
///
/// Tuples from `when(fulfilled: a, b)` and arrays from `when(fulfilled: [a, b])` both read as
/// `.list`; `when(resolved:)`'s results as `.results`.
indirect enum Value: Hashable, Sendable, CustomStringConvertible {
    case int(Int)
    case void
    case list([Int])
    case results([Outcome])

    /// The number a `map` closure adds its constant to.
    var digest: Int {
        switch self {
        case .int(let value): return value
        case .void: return 0
        case .list(let values): return values.reduce(0, &+)
        case .results(let outcomes): return outcomes.reduce(0) { $0 &+ ($1.value?.digest ?? 1) }
        }
    }

    var description: String {
        switch self {
        case .int(let value): return "\(value)"
        case .void: return "()"
        case .list(let values): return "\(values)"
        case .results(let outcomes): return "[" + outcomes.map(\.description).joined(separator: ", ") + "]"
        }
    }
}

/// Why a promise was rejected, as the model tells errors apart.
enum Failure: Hashable, Sendable, CustomStringConvertible {
    /// A ``TesterError`` the program threw or rejected with.
    case user(Int)
    /// Any error whose `isCancelled` is true (`PMKError.cancelled`, `CancellationError`).
    case cancelled
    case timedOut
    case compactMap
    case validationFailed
    case noWinner
    case badInput
    case returnedSelf
    case other(String)

    init(_ error: Error) {
        if let error = error as? TesterError {
            self = .user(error.id)
        } else if error.isCancelled {
            self = .cancelled
        } else if let error = error as? PMKError {
            switch error {
            case .timedOut: self = .timedOut
            case .compactMap: self = .compactMap
            case .validationFailed: self = .validationFailed
            case .noWinner: self = .noWinner
            case .badInput: self = .badInput
            case .returnedSelf: self = .returnedSelf
            default: self = .other("\(error)")
            }
        } else {
            self = .other("\(error)")
        }
    }

    var description: String {
        switch self {
        case .user(let id): return "TesterError(\(id))"
        case .cancelled: return "cancelled"
        case .timedOut: return "PMKError.timedOut"
        case .compactMap: return "PMKError.compactMap"
        case .validationFailed: return "PMKError.validationFailed"
        case .noWinner: return "PMKError.noWinner"
        case .badInput: return "PMKError.badInput"
        case .returnedSelf: return "PMKError.returnedSelf"
        case .other(let text): return "other(\(text))"
        }
    }
}

/// The state of a promise, guarantee or foreign thenable, as the model reads it.
indirect enum Outcome: Hashable, Sendable, CustomStringConvertible {
    case pending
    case fulfilled(Value)
    case rejected(Failure)

    static let cancelled = Outcome.rejected(.cancelled)

    var isPending: Bool { self == .pending }
    var isSettled: Bool { self != .pending }
    var isFulfilled: Bool { value != nil }
    var isCancelled: Bool { self == .cancelled }

    var value: Value? {
        if case .fulfilled(let value) = self { return value }
        return nil
    }

    var failure: Failure? {
        if case .rejected(let failure) = self { return failure }
        return nil
    }

    var description: String {
        switch self {
        case .pending: return "pending"
        case .fulfilled(let value): return "fulfilled(\(value))"
        case .rejected(.cancelled): return "cancelled"
        case .rejected(let failure): return "rejected(\(failure))"
        }
    }
}

/// The error the programs throw and reject with; `id` tells the model which one arrived.
struct TesterError: Error, Sendable, Equatable {
    let id: Int
}

/// How one Swift value type of the graph reads as a model ``Value``, and how the interpreter
/// makes one from a number (for `recover`'s and `Promise.value`'s sealed values).
struct ValueKind<T: Sendable>: Sendable {
    let type: ValueType
    let model: @Sendable (T) -> Value
    let make: @Sendable (Int) -> T

    func outcome(_ result: Result<T, Error>?) -> Outcome {
        switch result {
        case nil: return .pending
        case .success(let value)?: return .fulfilled(model(value))
        case .failure(let error)?: return .rejected(Failure(error))
        }
    }
}

extension ValueKind where T == Int {
    static let int = ValueKind(type: .int, model: { .int($0) }, make: { $0 })
}

extension ValueKind where T == Void {
    static let void = ValueKind(type: .void, model: { _ in .void }, make: { _ in () })
}

extension ValueKind where T == [Int] {
    static let list = ValueKind(type: .list, model: { .list($0) }, make: { [$0] })
}

extension ValueKind where T == (Int, Int) {
    static let pair = ValueKind(type: .pair, model: { .list([$0.0, $0.1]) }, make: { ($0, $0) })
}

extension ValueKind where T == (Int, Int, Int) {
    static let triple = ValueKind(type: .triple, model: { .list([$0.0, $0.1, $0.2]) }, make: { ($0, $0, $0) })
}

extension ValueKind where T == [Result<Int, Error>] {
    static let results = ValueKind(
        type: .results,
        model: { results in
            .results(results.map { ValueKind<Int>.int.outcome($0) })
        },
        make: { [.success($0)] }
    )
}
