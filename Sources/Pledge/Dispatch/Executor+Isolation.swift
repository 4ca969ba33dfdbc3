import Dispatch

// The forms without `on:` take an `@isolated(any)` closure and call it synchronously where its
// isolation says: a nonisolated closure anywhere, a main-actor one on the main queue, an actor's
// inside the actor (see `ActorDispatcher`). Swift offers no checked way to do that (it calls an
// `@isolated(any)` function only with `await`, since the caller may be off its executor), so
// `placed` hands back the executor its isolation names together with the closure as a plain
// function: no caller can run the one anywhere but on the other.

extension Executor {
    /// The executor for `body`, where its isolation says (`queue` and `flags` when it has none),
    /// and `body` as a plain function, to be called only through that executor.
    @inlinable
    static func placed<I, O>(
        _ body: @escaping @isolated(any) @Sendable (I) throws -> O, otherwise queue: DispatchQueue?,
        flags: DispatchWorkItemFlags?
    ) -> (Executor, @Sendable (I) throws -> O) {
        (Executor(queue, flags: flags, isolation: body.isolation), erasingIsolation(of: body))
    }

    /// ``placed(_:otherwise:flags:)-(_,_,_)`` for a closure that cannot throw.
    @inlinable
    static func placed<I, O>(
        _ body: @escaping @isolated(any) @Sendable (I) -> O, otherwise queue: DispatchQueue?,
        flags: DispatchWorkItemFlags?
    ) -> (Executor, @Sendable (I) -> O) {
        (Executor(queue, flags: flags, isolation: body.isolation), erasingIsolation(of: body))
    }

    /// ``placed(_:otherwise:flags:)-(_,_,_)`` for a closure of no argument.
    @inlinable
    static func placed<O>(
        _ body: @escaping @isolated(any) @Sendable () -> O, otherwise queue: DispatchQueue?,
        flags: DispatchWorkItemFlags?
    ) -> (Executor, @Sendable () -> O) {
        (Executor(queue, flags: flags, isolation: body.isolation), erasingIsolation(of: body))
    }

    /// ``placed(_:otherwise:flags:)-(_,_,_)`` for a closure of two arguments.
    @inlinable
    static func placed<A, B, O>(
        _ body: @escaping @isolated(any) @Sendable (A, B) -> O, otherwise queue: DispatchQueue?,
        flags: DispatchWorkItemFlags?
    ) -> (Executor, @Sendable (A, B) -> O) {
        (Executor(queue, flags: flags, isolation: body.isolation), erasingIsolation(of: body))
    }
}

/// `isolated`, an `@isolated(any)` function, as the plain function type `Plain`, which the
/// overloads of ``Executor/placed(_:otherwise:flags:)-(_,_,_)`` pair with it.
///
/// Safety: an `@isolated(any)` function has a plain function's representation, its isolation
/// kept in its context (`unsafeBitCast` traps if the sizes differ; `IsolationErasureTests`
/// checks the representation); the overloads above are its only callers, each with matching
/// types, and each hands the result out only with the executor its isolation names.
@inlinable
func erasingIsolation<Isolated, Plain>(of isolated: Isolated) -> Plain {
    unsafe unsafeBitCast(isolated, to: Plain.self)
}
