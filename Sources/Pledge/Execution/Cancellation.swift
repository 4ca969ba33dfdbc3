import CPledgeThreadLocal

// Cancelling: the execution half. One loop walks a cancellation up a chain, one box at a time,
// so that cancelling the end of a chain of any length does not grow the stack.

@usableFromInline
enum Cancellation {
    /// Cancels `box` as `reason` allows (see ``CancelReason``), then, from a loop, each box
    /// upstream whose every dependent is now cancelled.
    @usableFromInline
    static func run(from box: AnyBox, _ reason: CancelReason) {
        var current: AnyBox? = box
        var reason = reason
        while let box = current {
            current = box.cancelStep(reason)
            reason = .dependentCancelled(box)
        }
    }
}

extension EmptyBox {
    /// ``AnyBox/cancelStep(_:)``: the transition, then what it says to do, after the lock.
    @usableFromInline
    final func cancelAndFire(_ reason: CancelReason) -> AnyBox? {
        var outcome = cancelTransition(reason)
        if let removed = outcome.removed.take() {
            // Its handler will never run: let the dependent drop what it kept for it. Released
            // here, after the lock.
            (removed.target as? AnyBox)?.withdrawn()
            _ = consume removed
        }
        guard outcome.cancelled else { return nil }
        if outcome.due { Trampoline.fire(self) }
        return outcome.upstream
    }

    /// ``AnyBox/takeUpstream()``.
    @usableFromInline
    final func lockedUpstream() -> AnyBox? {
        let word = lock()
        defer { unlock(word) }
        guard word.phase == BoxPhase.pending else { return nil }
        return retainedUpstream()
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

/// What a `when` or `race` keeps to cancel its inputs when its own promise is cancelled: the
/// input promises' boxes and the target their handlers were attached with, each by an unowned
/// count, which keeps the memory of an object without keeping it alive (so an input that can
/// never resolve is still freed when nothing else holds it).
///
/// Kept as an `onCancel` hook of the fan-in's box (see ``EmptyBox/addCancelHook(_:)``): it
/// runs, on the cancelling thread, only if that box is cancelled, and goes with the hook
/// otherwise.
@usableFromInline
final class FanInLinks: @unchecked Sendable {
    // Safety: `inputs` and `count` are written only by `add(_:)`, before the links are handed
    // to a hook, which publishes them. Every address in `inputs` carries an unowned count taken
    // when it was stored and given back in `deinit`, so its memory stays allocated while this
    // object lives, and `retainIfAlive` may be called on it.
    @usableFromInline let target: UnownedTarget
    @usableFromInline let inputs: UnsafeMutablePointer<UnsafeMutableRawPointer>
    @usableFromInline let capacity: Int
    @exclusivity(unchecked) @usableFromInline var count = 0

    /// Links to `target`, the object the inputs' handlers are attached with; room for
    /// `capacity` inputs.
    @usableFromInline
    init(target: AnyObject, capacity: Int) {
        self.target = UnownedTarget(target)
        self.capacity = capacity
        inputs = .allocate(capacity: capacity)
    }

    deinit {
        for index in 0..<count { pledge_unowned_release(inputs[index]) }
        inputs.deallocate()
    }

    /// Adds an input promise's box; at most `capacity` of them.
    @inlinable
    func add(_ input: AnyBox) {
        guard count < capacity else { return }
        let pointer = Unmanaged.passUnretained(input).toOpaque()
        pledge_unowned_retain(pointer)
        (inputs + count).initialize(to: pointer)
        count += 1
    }

    /// The fan-in was cancelled: each input still alive loses the fan-in as a dependent, and is
    /// cancelled when that was its last one.
    @usableFromInline
    func cancelInputs() {
        guard let target = target.alive() else { return }
        for index in 0..<count {
            // `inputs` holds only boxes (see `add(_:)`), each with an unowned count.
            if let input = retainIfAlive(inputs[index], as: AnyBox.self) {
                Cancellation.run(from: input, .dependentCancelled(target))
            }
        }
    }
}

/// The object at `pointer`, with a strong count, unless it is being freed or was (then `nil`):
/// `swift_tryRetain`, its count adopted. The one place Pledge does this.
///
/// The caller must know that the memory at `pointer` is still an allocated `Object`: it holds an
/// unowned count on it, or a lock that the object's `deinit` must take before it can finish.
@usableFromInline
func retainIfAlive<Object: AnyObject>(_ pointer: UnsafeMutableRawPointer?, as _: Object.Type) -> Object? {
    // Safety: see above; `swift_tryRetain` gives a count only to an object not being freed.
    guard let pointer, pledge_try_retain(pointer) else { return nil }
    return Unmanaged<Object>.fromOpaque(pointer).takeRetainedValue()
}

/// An object held by an unowned count: its memory stays allocated, so ``alive()`` may ask for it
/// at any time, but the object is not kept alive. What a hook uses to reach the fan-in that owns
/// the hook's box without a cycle that would keep both alive for good.
@usableFromInline
final class UnownedTarget: @unchecked Sendable {
    // Safety: immutable; the unowned count taken in `init` is given back in `deinit`.
    @usableFromInline let pointer: UnsafeMutableRawPointer

    @usableFromInline
    init(_ object: AnyObject) {
        pointer = Unmanaged.passUnretained(object).toOpaque()
        pledge_unowned_retain(pointer)
    }

    deinit {
        pledge_unowned_release(pointer)
    }

    /// The object, with a strong count, unless it is being freed or was.
    @usableFromInline
    func alive() -> AnyObject? {
        retainIfAlive(pointer, as: AnyObject.self)
    }
}
