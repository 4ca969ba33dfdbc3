// Cancelling: the execution half. One loop walks a cancellation up a chain, one box at a time,
// so that cancelling the end of a chain of any length does not grow the stack.

/// A box as the cancelling loop sees it, whatever its value type.
@usableFromInline
protocol CancelNode: AnyObject {
    /// Cancels the box as ``EmptyBox/cancelTransition(_:)`` decides, runs its handlers
    /// (its `onCancel` hooks, and the dependents that learn of the cancellation), and hands back
    /// the box it depended on, when that one may be cancelled in turn.
    func cancelStep(_ reason: CancelReason) -> AnyObject?

    /// Whether the box is sealed with a cancellation.
    var endedCancelled: Bool { get }

    /// The box this one depends on, with a count, while this one is pending and it is alive.
    func takeUpstream() -> AnyObject?
}

@usableFromInline
enum Cancellation {
    /// Cancels `node` as `reason` allows (see ``CancelReason``), then, from a loop, each box
    /// upstream whose every dependent is now cancelled.
    @usableFromInline
    static func run(from node: AnyObject, _ reason: CancelReason) {
        var current: AnyObject? = node
        var reason = reason
        while let box = current as? any CancelNode {
            current = box.cancelStep(reason)
            reason = .dependentCancelled(box)
        }
    }
}

extension EmptyBox: CancelNode {
    @usableFromInline
    final func cancelStep(_ reason: CancelReason) -> AnyObject? {
        var outcome = cancelTransition(reason)
        if let removed = outcome.removed.take() {
            // Its handler will never run: let the dependent drop what it kept for it. Released
            // here, after the lock.
            (removed.target as? any AbandonableTarget)?.abandon()
            _ = consume removed
        }
        guard outcome.cancelled else { return nil }
        if outcome.due { Trampoline.fire(self) }
        return outcome.upstream
    }

    @usableFromInline
    final func takeUpstream() -> AnyObject? {
        let word = lock()
        defer { unlock(word) }
        guard word.phase == BoxPhase.pending else { return nil }
        return retainedUpstream()
    }

    @usableFromInline
    final var endedCancelled: Bool {
        phase != BoxPhase.pending && Self.isCancellation(value)
    }
}

extension Trampoline {
    /// Runs the handlers of `box`, sealed and firing, before returning, or leaves them to the
    /// running loop when the thread is nested too deep.
    @usableFromInline
    static func fire<R>(_ box: EmptyBox<R>) {
        run(
            on: ThreadRunState.current, { _ in EmptyBox.fireStep(Retained(box)) },
            deferred: { EmptyBox.fireStep(Retained(box)) })
    }
}
