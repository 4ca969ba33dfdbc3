import Dispatch

/// Something that eventually produces a value or an error: a ``Promise`` or a ``Guarantee``.
///
/// A thenable needs only two things, ``pipe(to:)`` and ``result``; every chaining operator
/// (`then`, `map`, `done`, `get`, `tap`, the sequence helpers, …) is written once, in
/// extensions, on top of them.
///
/// Thenables are class-bound and `Sendable`: share them freely across threads. Their value type
/// is `Sendable` because a value is handed from the thread that resolves it to the queue its
/// handlers run on. (In Swift 5 language mode that requirement is not enforced, so PromiseKit
/// code with non-`Sendable` values keeps compiling.)
public protocol Thenable: AnyObject, Sendable {
    /// The type of the value this thenable produces.
    associatedtype T: Sendable

    /// Calls `body` with the result once this thenable is resolved.
    ///
    /// Handlers attached with `pipe` run exactly once, and a thread's handlers start in the order
    /// it attached them, each after the one before has returned: on the calling thread at once
    /// when the thenable is resolved (right after this thread's earlier handler, on the thread
    /// running it, when one still runs), otherwise on the thread that resolves it.
    func pipe(to body: @escaping @Sendable (Result<T, Error>) -> Void)

    /// The result, or `nil` while pending.
    var result: Result<T, Error>? { get }
}
