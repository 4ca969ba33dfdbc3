import CPledgeThreadLocal

// Cancelling: the storage half. A pending box remembers the box it depends on (its *upstream*)
// in its idle value slot, and one locked transition decides whether the box is cancelled. The
// loop that walks a cancellation up a chain is in Execution/Cancellation.swift.

extension EmptyBox {
    /// The upstream link: the address of the box this one depends on, or 0. It lives in the
    /// first word of the value slot, which a pending box does not use (see
    /// ``pendingPlaceholder()``), so it costs no memory.
    ///
    /// The link counts nothing: it is valid while this box is pending and its upstream still
    /// holds this box's handler, or is firing it. Whoever makes the upstream let go of that
    /// handler without calling it clears the link first, under this box's lock: the upstream's
    /// `deinit` (``abandon(from:)``), or this box's handler as it hands its operation to a queue
    /// (``unlink()``). So, under this box's lock, a non-zero link names memory that is still a
    /// box, which ``cancelTransition(_:)`` turns into a count with `swift_tryRetain`.
    ///
    /// Read and written only while the lock is held, or before the box is published.
    @inlinable
    final var linkWord: UInt {
        @inline(__always) get {
            // Safety: `Result<T, Error>` keeps its failure payload, the error reference, in its
            // first word for every `T` (see `pendingPlaceholder()`); while pending, that word is
            // the placeholder's null error or a link, and nothing else reads it.
            withUnsafeMutablePointer(to: &value) { UnsafeMutableRawPointer($0).load(as: UInt.self) }
        }
        @inline(__always) set {
            // Safety: as above; the word is never released as an error: sealing writes over it
            // without destroying it, and `deinit` clears it before the value is destroyed.
            withUnsafeMutablePointer(to: &value) { UnsafeMutableRawPointer($0).storeBytes(of: newValue, as: UInt.self) }
        }
    }

    /// Links this box, not yet published, to the box it is about to be attached to.
    @inlinable @inline(__always)
    final func link(to upstream: AnyObject) {
        linkWord = UInt(bitPattern: Unmanaged.passUnretained(upstream).toOpaque())
    }

    /// Forgets the upstream: for a handler that has taken its input and hands its operation to
    /// a queue, after which the upstream may go.
    @inlinable
    final func unlink() {
        let word = lock()
        if word.phase == BoxPhase.pending { linkWord = 0 }
        unlock(word)
    }

    /// The upstream, with a count, unless it is being freed; the caller holds the lock and the
    /// box is pending.
    @usableFromInline
    final func retainedUpstream() -> AnyBox? {
        // Under this box's lock a non-zero link names a box whose memory is still allocated (see
        // `linkWord`).
        retainIfAlive(UnsafeMutableRawPointer(bitPattern: linkWord), as: AnyBox.self)
    }

    /// The one transition behind cancelling. Seals the box with ``PMKError/cancelled`` and
    /// takes its upstream, if the box is pending and `reason` allows (see ``CancelReason``); for
    /// ``CancelReason/dependentCancelled(_:)`` it first takes that dependent's handler back. A
    /// ``LazyBox`` cancelled before it started releases its body, unrun, after the lock.
    @usableFromInline
    final func cancelTransition(_ reason: CancelReason) -> CancelOutcome {
        var outcome = CancelOutcome()
        var word = lock()
        let allowed: Bool
        switch reason {
        case .cancelled:
            allowed = true
        case .dependentCancelled(let target):
            outcome.removed = handlers.remove(target: target, &word)
            allowed = outcome.removed != nil && !handlers.hasDependents
        case .dependentWithdrawn:
            allowed = !handlers.hasDependents
        }
        guard allowed, word.phase == BoxPhase.pending else {
            // `cancel()` on a promise already rejected: whoever cancels no longer wants its
            // outcome, so the failure counts as seen (see `Promise.cancel()`).
            if case .cancelled = reason { word.markSeen() }
            unlock(word)
            return outcome
        }
        outcome.upstream = retainedUpstream()
        // The placeholder is a failure already: writing the error into its first word, over the
        // link (not a reference to release, see `linkWord`), makes the value
        // `.failure(PMKError.cancelled)`. The lock gives this thread exclusive access to it.
        linkWord = CancelledError.word()
        outcome.cancelled = true
        outcome.due = !handlers.isEmpty
        // A lazy box cancelled before it started never starts: the bit goes with sealing, and
        // its body with the lock.
        let unstarted = word.raw >= BoxPhase.notStarted
        word.raw =
            word.raw & ~(BoxPhase.mask | BoxPhase.notStarted) | (outcome.due ? BoxPhase.firing : BoxPhase.settled)
        unlock(word)
        if unstarted { discardBody() }
        return outcome
    }

    /// Stores `body` to run if the box is cancelled; runs it at once when the box is cancelled
    /// already, and drops it when the box ended otherwise.
    @usableFromInline
    final func addCancelHook(_ body: @escaping @Sendable () -> Void) {
        var word = lock()
        if word.phase == BoxPhase.pending {
            // Lane 0: only the cancelling thread's loop runs it, never a thread that helps.
            handlers.append(Handler(target: CancelHook(body), function: CancelHook.fire), lane: 0, &word)
            unlock(word)
            return
        }
        unlock(word)
        if endedCancelled { body() }
    }
}

/// ``PMKError/cancelled`` as the one word an `any Error` is, for writing into a pending box's
/// placeholder (see ``EmptyBox/cancelTransition(_:)``): no cast to the box's value type needed.
@usableFromInline
enum CancelledError {
    /// The error, made once and never freed.
    static let error: any Error = PMKError.cancelled

    /// The error's word: the address of the object `any Error` refers to.
    static let bits: UInt = {
        // Safety: `any Error` is one reference to a heap object, as `CancelLayoutTests` pins;
        // `error` keeps it alive for good.
        UInt(bitPattern: unsafeBitCast(error as any Error, to: UnsafeMutableRawPointer.self))
    }()

    /// The error's word, with a count for the box it is written into.
    @usableFromInline
    static func word() -> UInt {
        // Safety: the count taken here becomes the box's, whose value gives it back when it is
        // destroyed.
        _ = Unmanaged<AnyObject>.fromOpaque(UnsafeRawPointer(bitPattern: bits).unsafelyUnwrapped).retain()
        return bits
    }

    /// Whether `word`, the address of a sealed box's error, is this very error: the box was
    /// cancelled by ``EmptyBox/cancelTransition(_:)``, not rejected by its producer with some
    /// cancellation error of its own.
    @usableFromInline
    static func isWritten(_ word: UInt) -> Bool {
        word == bits
    }
}

/// What the cancelling path and the unhandled-rejection report need of a box's value type,
/// `Result<T, Error>`, which a ``Box`` only knows as `R`.
@usableFromInline
protocol CancellableOutcome {
    /// A failure with ``PMKError/cancelled``.
    static var cancelledOutcome: Self { get }
    /// Whether this is the failure ``EmptyBox/cancelTransition(_:)`` writes: ``CancelledError``'s
    /// own error, not a cancellation error a producer made.
    var isWrittenByCancel: Bool { get }
    /// Whether this is a failure; unlike `failure != nil`, copies no error (no retain).
    var isFailure: Bool { get }
    /// The error, when this is a failure.
    var failure: (any Error)? { get }
}

extension Result: CancellableOutcome where Failure == any Error {
    @inlinable
    static var cancelledOutcome: Self { .failure(PMKError.cancelled) }

    @inlinable
    var isWrittenByCancel: Bool {
        guard case .failure(let error) = self else { return false }
        // Safety: `any Error` is one reference to a heap object, as `CancelLayoutTests` pins;
        // the address is compared, never used. (`as any Error` keeps the existential closed:
        // opened, the cast would see the error's own type.)
        return CancelledError.isWritten(
            UInt(bitPattern: unsafeBitCast(error as any Error, to: UnsafeMutableRawPointer.self)))
    }

    @inlinable
    var isFailure: Bool {
        if case .failure = self { return true }
        return false
    }

    @inlinable
    var failure: (any Error)? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

/// What ``cancelTransition(_:)`` decided.
@usableFromInline
struct CancelOutcome: ~Copyable {
    /// The handler taken back, to release after the lock.
    @usableFromInline var removed: Handler?
    /// Whether the box was cancelled now.
    @usableFromInline var cancelled: Bool
    /// Whether handlers are due: the box is now firing, and the caller must run them.
    @usableFromInline var due: Bool
    /// The box this one depended on, with a count, when it was still alive.
    @usableFromInline var upstream: AnyBox?

    @inlinable
    init() {
        removed = nil
        cancelled = false
        due = false
        upstream = nil
    }
}

/// Why a box may be cancelled.
@usableFromInline
enum CancelReason {
    /// `cancel()` was called on it: it is cancelled if pending.
    case cancelled
    /// The dependent whose handler has this target was cancelled: the handler is taken back,
    /// and the box is cancelled if that was its last dependent.
    case dependentCancelled(AnyObject)
    /// A would-be dependent was cancelled before it attached: the box is cancelled if it has no
    /// dependent.
    case dependentWithdrawn
}

/// An `onCancel` body, stored in a box as the target of a handler: it runs when the box ends
/// cancelled and is dropped otherwise. Not a dependent of the box (see
/// ``Handlers/hasDependents``).
@usableFromInline
final class CancelHook: Sendable {
    @usableFromInline
    let body: @Sendable () -> Void

    @usableFromInline
    init(_ body: @escaping @Sendable () -> Void) {
        self.body = body
    }

    /// The handler a hook is attached with.
    @usableFromInline
    static let fire: HandlerFunction = { target, box, _ in
        // Safety: `fire` is only ever attached with a `CancelHook` as target (see
        // `EmptyBox.addCancelHook(_:)`).
        let hook = unsafeDowncast((consume target).unsafelyUnwrapped, to: CancelHook.self)
        // Safety: a handler is called with the box it was attached to.
        if unsafeDowncast(box, to: AnyBox.self).endedCancelled { hook.body() }
        return nil
    }
}

extension Handlers {
    /// Whether a stored handler is a dependent: anything but an `onCancel` hook.
    @inlinable
    var hasDependents: Bool {
        if function != nil { return !(target is CancelHook) }
        guard let list else { return false }
        for case let entry? in list.items[list.head...] where !(entry.target is CancelHook) { return true }
        return false
    }
}
