import Pledge

/// The interpreter's strong reference to one node's Pledge object. Dropping the handle is the
/// "drop a reference" action.
protocol NodeHandle: AnyObject, Sendable {
    /// A way to read the node's state later that does not keep it alive.
    func makeObserver() -> NodeObserver
    /// Calls `cancel()`, if the node is a promise or a finalizer.
    func cancel()
    /// Makes the node `operation` builds from this one.
    func attach(_ operation: Operation, on executor: Executor, _ build: Build) -> (any NodeHandle)?
    /// What the object is, to check it against the program's node.
    var form: Form { get }
    var type: ValueType { get }
}

extension NodeHandle {
    func cancel() {}
}

/// Reads a node's state through a weak reference: `nil` once the object is gone.
struct NodeObserver: Sendable {
    let read: @Sendable () -> Outcome?

    init<P: Thenable>(_ thenable: P, _ kind: ValueKind<P.T>) {
        let weakly = WeakBox(thenable)
        read = { weakly.object.map { kind.outcome($0.result) } }
    }

    /// For nodes that have no state of their own (finalizers, `finally`).
    static let none = NodeObserver(read: { nil })

    private init(read: @escaping @Sendable () -> Outcome?) {
        self.read = read
    }
}

private final class WeakBox<Object: AnyObject & Sendable>: Sendable {
    weak let object: Object?

    init(_ object: Object) {
        self.object = object
    }
}

final class PromiseHandle<T: Sendable>: NodeHandle {
    let promise: Promise<T>
    let kind: ValueKind<T>

    init(_ promise: Promise<T>, _ kind: ValueKind<T>) {
        self.promise = promise
        self.kind = kind
    }

    var form: Form { .promise }
    var type: ValueType { kind.type }
    func makeObserver() -> NodeObserver { NodeObserver(promise, kind) }
    func cancel() { promise.cancel() }
}

final class GuaranteeHandle<T: Sendable>: NodeHandle {
    let guarantee: Guarantee<T>
    let kind: ValueKind<T>

    init(_ guarantee: Guarantee<T>, _ kind: ValueKind<T>) {
        self.guarantee = guarantee
        self.kind = kind
    }

    var form: Form { .guarantee }
    var type: ValueType { kind.type }
    func makeObserver() -> NodeObserver { NodeObserver(guarantee, kind) }
}

final class ForeignHandle: NodeHandle {
    let thenable: ForeignThenable

    init(_ thenable: ForeignThenable) {
        self.thenable = thenable
    }

    var form: Form { .foreign }
    var type: ValueType { .int }
    func makeObserver() -> NodeObserver { NodeObserver(thenable, .int) }
}

final class FinalizerHandle: NodeHandle {
    let finalizer: PMKFinalizer

    init(_ finalizer: PMKFinalizer) {
        self.finalizer = finalizer
    }

    var form: Form { .finalizer }
    var type: ValueType { .void }
    func makeObserver() -> NodeObserver { .none }
    func cancel() { finalizer.cancel() }
}

/// What `finally` leaves: nothing to hold but a place in the node table.
final class MarkerHandle: NodeHandle {
    var form: Form { .marker }
    var type: ValueType { .void }
    func makeObserver() -> NodeObserver { .none }
    func attach(_ operation: Operation, on executor: Executor, _ build: Build) -> (any NodeHandle)? { nil }
}

/// The one way a pending source is resolved from outside.
enum ResolverHandle: Sendable {
    case promise(Resolver<Int>)
    case guarantee(@Sendable (Int) -> Void)
    case voidGuarantee(@Sendable (()) -> Void)
    case foreign(ForeignThenable)

    func fulfill(_ value: Int) {
        switch self {
        case .promise(let resolver): resolver.fulfill(value)
        case .guarantee(let resolve): resolve(value)
        case .voidGuarantee(let resolve): resolve(())
        case .foreign(let thenable): thenable.resolve(.success(value))
        }
    }

    func reject(_ id: Int) {
        switch self {
        case .promise(let resolver): resolver.reject(TesterError(id: id))
        case .foreign(let thenable): thenable.resolve(.failure(TesterError(id: id)))
        case .guarantee, .voidGuarantee: break
        }
    }
}

/// What a node being made needs besides its input: its id, the recorder its closures report to,
/// and the other nodes its closures return.
struct Build: Sendable {
    let id: NodeID
    let recorder: Recorder
    let lookup: @Sendable (NodeID) -> (any NodeHandle)?

    func ran(_ argument: Outcome? = nil, on executor: Executor) {
        recorder.ran(id, argument: argument, on: executor)
    }

    func promise<T>(_ node: NodeID, _: ValueKind<T>) -> Promise<T>? {
        (lookup(node) as? PromiseHandle<T>)?.promise
    }

    func guarantee<T>(_ node: NodeID, _: ValueKind<T>) -> Guarantee<T>? {
        (lookup(node) as? GuaranteeHandle<T>)?.guarantee
    }

    func foreign(_ node: NodeID) -> ForeignThenable? {
        (lookup(node) as? ForeignHandle)?.thenable
    }
}
