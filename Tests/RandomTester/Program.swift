/// A random program: the graph of promises it builds, then what each thread does to it.
///
/// Programs are plain data, so that one seed always gives the same program, the trace can print
/// it, and the model can read it without running anything.
struct Program: Sendable {
    /// Every node, in creation order: a node only refers to nodes before it.
    var nodes: [Node]
    /// The actions of each thread, in the order that thread plays them (1 to 4 threads).
    var threads: [[Action]]
    /// Where the program came from, for the trace: "seed 42" or "fuzz input".
    var origin: String
}

typealias NodeID = Int

/// The Swift type of a node's value.
enum ValueType: Hashable, Sendable {
    case int
    case void
    case list
    case pair
    case triple
    case results

    /// The model value of what ``ValueKind/make`` builds from `number`.
    func sample(_ number: Int) -> Value {
        switch self {
        case .int: return .int(number)
        case .void: return .void
        case .list: return .list([number])
        case .pair: return .list([number, number])
        case .triple: return .list([number, number, number])
        case .results: return .results([.fulfilled(.int(number))])
        }
    }
}

/// What kind of object a node is.
enum Form: Hashable, Sendable {
    case promise
    case guarantee
    /// A `ForeignThenable<Int>`: a thenable written outside Pledge.
    case foreign
    /// The `PMKFinalizer` a `catch` returns.
    case finalizer
    /// What `finally` makes: no object, only the record that its closure ran.
    case marker
}

/// Where a handler closure runs.
enum Executor: Hashable, Sendable, CaseIterable {
    /// `on: nil`.
    case inline
    /// No `on:`, in a non-isolated context: `conf.Q`.
    case standard
    case serialQueue
    case concurrentQueue
    /// `on: dispatcher`, a custom ``Dispatcher``.
    case dispatcher
    /// `on: mainQueue`, `DispatchQueue.main` passed as a value.
    case mainQueue
    /// A closure marked `@MainActor`, no `on:`.
    case mainActor
    /// A closure isolated to the global actor ``TesterActor``, no `on:`.
    case actor
}

/// A node in the graph.
struct Node: Sendable {
    let id: NodeID
    let type: ValueType
    let form: Form
    let origin: Origin
    /// Made by an `attach` action while the threads play, rather than before.
    let isLate: Bool

    var isCancellable: Bool { form == .promise || form == .finalizer }
}

/// How a node is made.
enum Origin: Sendable {
    case source(Source)
    case operation(Operation, input: NodeID, on: Executor)
    case combinator(Combinator, inputs: [NodeID])
    case retry(attempts: Int, script: [Attempt], backoffMilliseconds: Int)
}

/// A node with no input in the graph.
enum Source: Sendable {
    /// `Promise.pending()`, `Guarantee.pending()` or a `ForeignThenable`: the actions resolve it.
    case pending
    /// `Promise.value`, `Guarantee.value`.
    case fulfilled(Int)
    /// `Promise(error:)`.
    case rejected(Int)
    /// `Promise.lazy { … }` or `Guarantee.lazy { … }`.
    case lazy(LazyBody)
    /// `after(.milliseconds(n))` (a `Guarantee<Void>`).
    case after(milliseconds: Int)
    /// `Promise(task:)` or `Guarantee(task:)`.
    case task(TaskBody)
}

enum LazyBody: Sendable {
    case fulfill(Int)
    case reject(Int)
    /// Fulfils from a global queue, after the body has returned.
    case fulfillLater(Int)
    /// Pipes the node before it into its resolver (`previous.pipe { seal.resolve($0) }`).
    case pipe(NodeID)
}

enum TaskBody: Sendable {
    case value(Int)
    case fail(Int)
    /// `try await node.async() + add`.
    case await(NodeID, add: Int)
}

/// One attempt of a `retry`: what its body returns.
enum Attempt: Sendable {
    case fulfill(Int)
    case reject(Int)
    case `throw`(Int)
    /// `after(1 ms).then { Promise.value(n) }`: fulfils a little later.
    case fulfillLater(Int)
}

/// What a `then` or `recover` closure returns, or an `ensureThen` closure.
enum Returned: Sendable {
    /// `Promise.value(n)` (or `Guarantee.value(n)` where a guarantee is needed).
    case value(Int)
    /// `Promise(error: TesterError(n))`.
    case rejection(Int)
    /// Throws `TesterError(n)`.
    case `throw`(Int)
    /// A node of the graph: a promise from another chain, a pending guarantee, a foreign thenable.
    case node(NodeID)
}

enum Operation: Sendable {
    /// `map { $0.digest + add }`, or throws `TesterError(fail)`.
    case map(add: Int, fail: Int?)
    /// `compactMap`: `nil` when `returnsNil`.
    case compactMap(add: Int, returnsNil: Bool)
    case then(Returned)
    case done(fail: Int?)
    case get(fail: Int?)
    case tap
    case validate(passes: Bool)
    case asVoid
    /// `timeout(.milliseconds(n))`; `nil` is `.never`.
    case timeout(milliseconds: Int?)
    /// `recover(policy:)` with a closure that returns a thenable or throws.
    case recover(Returned, allErrors: Bool)
    /// `recover { _ in guarantee }`, which returns a `Guarantee`.
    case recoverGuarantee(Returned)
    case ensure
    /// `ensureThen { guarantee }`: `.value` for `Guarantee()`, or a `Guarantee<Void>` node.
    case ensureThen(Returned)
    /// `catch(policy:)`, which makes a finalizer.
    case `catch`(allErrors: Bool)
    /// `finally` on a finalizer; makes a node that only records that it ran.
    case finally
    /// A guarantee's own non-throwing forms, returning guarantees.
    case guaranteeMap(add: Int)
    case guaranteeThen(Returned)
    case guaranteeDone
    case guaranteeGet
}

enum Combinator: Sendable {
    /// `when(fulfilled: [a, b])` of promises or guarantees of `Int`, `Void` or anything.
    case whenFulfilled
    /// `when(fulfilled: a, b)` or `when(fulfilled: a, b, c)` of `Int` thenables: a tuple.
    case whenFulfilledTuple
    /// `when(fulfilled: a, b, …)` of `Void` promises.
    case whenFulfilledVariadic
    /// `when(resolved: [a, b])` or `when(resolved: a, b)`.
    case whenResolved(variadic: Bool)
    /// `when(fulfilled: iterator, concurrently: n)` and its `resolved:` form.
    case whenConcurrently(resolved: Bool, limit: Int)
    /// `when(guarantees: [a, b])`, `when(guarantees: a, b)` or `when(a, b)`.
    case whenGuarantees(GuaranteesForm)
    /// `race([a, b])` or `race(a, b)`.
    case race(variadic: Bool)
    case raceFulfilled
}

enum GuaranteesForm: Sendable {
    case array
    case tuple
    case variadic
}

/// One step a thread plays.
enum Action: Sendable {
    case fulfill(NodeID, Int)
    case reject(NodeID, Int)
    case cancel(NodeID)
    /// Releases the interpreter's reference to a node (promise, guarantee, finalizer).
    case dropNode(NodeID)
    /// Releases the resolver (or a guarantee's resolving function) of a pending source.
    case dropResolver(NodeID)
    /// Makes a late node (one with `isLate`) from its inputs.
    case attach(NodeID)
}
