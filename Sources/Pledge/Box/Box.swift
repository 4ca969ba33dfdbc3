import Synchronization

/// Something a box calls once it is sealed: the box of the operator attached to it, a fan-in,
/// an `async()` waiter, a `pipe` closure. Each depends on the box: a box whose dependents have
/// all been cancelled is cancelled too.
@usableFromInline
protocol Receiver<Input>: AnyObject, Sendable {
    /// The result type of the boxes it is attached to: `Result<T, Error>`.
    associatedtype Input

    /// `source`, the box this receiver was attached to, is sealed. Called once, never under a
    /// lock, inside a run (see ``ThreadRun``).
    ///
    /// - Returns: the work this call made due (a box it sealed, to fire), for the run to do: no
    ///   handler runs another box's handlers, so the stack does not grow with a chain.
    func receive(from source: Box<Input>) -> Work?

    /// The box `source` will never call this receiver: it is being freed unresolved (called
    /// from its `deinit`, so nothing released here may release it again), or took the handler
    /// back because this receiver was cancelled.
    func abandon(from source: ObjectIdentifier)

    /// `source`, a promise this receiver depends on, can now be resolved only by a cancellation:
    /// keep at most a weak reference to it (see ``Upstream``). By default it keeps none.
    func upstreamOrphaned(_ source: AnyBox)
}

extension Receiver {
    @inlinable
    func upstreamOrphaned(_: AnyBox) {}
}

/// A receiver as a box stores it: the receiver, which is also the dependent that cancelling
/// takes back (see ``CancelReason``), and the function that tells it what happened.
///
/// Not generic, so the engine's state needs no generic type. `call` captures nothing and is made
/// where the receiver's type is known, so it runs specialised; its casts cannot fail: only
/// ``Box/attach(_:lane:)`` and its siblings make handlers, each for the box it attaches to.
@usableFromInline
struct Handler: Sendable {
    // `receiver` last: its spare bits then share a word that `Firing.runningFirst` leaves free,
    // so the box's state needs no extra tag byte.
    @usableFromInline let call: @Sendable (AnyObject, Event) -> Work?
    @usableFromInline let receiver: AnyObject & Sendable

    /// What a box tells a handler.
    @usableFromInline
    enum Event {
        /// The box is sealed: its result is ready.
        case sealed(AnyBox)
        /// The box is being freed unresolved and will never call the handler.
        case abandoned(by: ObjectIdentifier)
        /// The box can now be resolved only by a cancellation (see ``Upstream``).
        case orphaned(AnyBox)
    }

    /// `receiver`'s handler, for `box`, a box of the receiver's input type.
    @inlinable
    init<Rc: Receiver>(_ receiver: Rc, for box: Box<Rc.Input>) {
        self.receiver = receiver
        call = { receiver, event in
            let receiver = receiver as! Rc
            switch event {
            case .sealed(let source): return receiver.receive(from: source as! Box<Rc.Input>)
            case .abandoned(let source): receiver.abandon(from: source)
            case .orphaned(let source): receiver.upstreamOrphaned(source)
            }
            return nil
        }
    }

    /// The handler that seals `box` with the result of `source`, the box it is for: what a box
    /// attaches to the thenable it follows (``ChainedBox/follow(_:)``, a promise made from a
    /// guarantee). The box is its own receiver, so that cancelling it takes this handler back.
    @inlinable
    init<T>(sealing box: EmptyBox<Result<T, Error>>, for source: Box<Result<T, Error>>) {
        receiver = box
        call = { box, event in
            let box = box as! EmptyBox<Result<T, Error>>
            switch event {
            case .sealed(let source): return box.seal((source as! Box<Result<T, Error>>).result())
            // What it follows can never resolve it now.
            case .abandoned: box.orphan()
            case .orphaned(let source): box.weaken(source)
            }
            return nil
        }
    }

    /// The box `source` is sealed: the receiver takes its result. (Calling `call` here, rather
    /// than at each call site, spares a retain and release of the receiver per handler.)
    @inlinable
    func receive(from source: AnyBox) -> Work? { call(receiver, .sealed(source)) }

    /// The box `source` is freed unresolved: the receiver hears it will never be called.
    @inlinable
    func abandon(by source: ObjectIdentifier) { _ = call(receiver, .abandoned(by: source)) }

    /// The box `source` can now be resolved only by a cancellation.
    @usableFromInline
    func orphaned(_ source: AnyBox) { _ = call(receiver, .orphaned(source)) }
}

/// The root of every box: the one type a cancellation walks through, and a run fires, whatever
/// the value type. Its methods do nothing here; ``EmptyBox`` overrides them.
@usableFromInline
class AnyBox: @unchecked Sendable {
    // Safety: `ledger` is immutable; the subclasses say how they guard what they add.

    #if DEBUG
        /// The ledger this box is counted in (see ``LiveObjectLedger``); debug builds only.
        @usableFromInline
        final let ledger: LiveObjectLedger?
    #endif

    @usableFromInline
    init() {
        #if DEBUG
            ledger = LiveObjectLedger.current
            ledger?.boxMade()
        #endif
    }

    #if DEBUG
        deinit { ledger?.boxFreed() }
    #endif

    /// Whether a box is sealed, and how: the values of ``Box/outcome``.
    @usableFromInline
    enum Outcome: UInt8, AtomicRepresentable {
        case pending
        /// Sealed with ``Box/value``, a success.
        case fulfilled
        /// Sealed with ``Box/value``, a failure.
        case rejected
        /// Sealed by a cancellation: the result is ``PMKError/cancelled``, whatever `value` holds.
        case cancelled
    }

    /// Cancels the box as `reason` allows and runs its handlers; returns the box this one
    /// depended on, when that one may be cancelled in turn (see ``cancelChain(from:_:)``).
    @usableFromInline
    func cancel(_ reason: CancelReason) -> AnyBox? { nil }

    /// Runs the handlers of this sealed box that this thread may run: every lane's if it sealed
    /// the box (`lane` is `nil`), else `lane`'s (see ``HandlerList``). Returns the first work they
    /// make due, to do next; the rest goes on `later`, the run's own work, in order.
    func fire(helping lane: UInt64?, scheduling later: inout [Work]) -> Work? { nil }
}

/// Where a promise was made, as its box records it in debug builds (see ``CreationSite``).
@usableFromInline
typealias SourceSite = (file: StaticString, line: UInt)

/// The storage behind every promise and guarantee, of result type `R` (`Result<T, Error>`): a
/// ``SealedBox`` is born with its result, an ``EmptyBox`` starts pending and is sealed once.
///
/// The result is `value`, of the bare type `R`, so that freeing a box needs no generic type
/// lookup. Until sealed it holds a placeholder (``PMKError/cancelledError``), never handed out.
@usableFromInline
class Box<R>: AnyBox, @unchecked Sendable {
    // Safety: `value` is written before the box is published (`SealedBox`), or once, under the
    // box's lock, before the release store of `outcome` that ends `pending` (`EmptyBox`). It is
    // read only once sealed: after an acquire load of `outcome`, or by a receiver the box calls,
    // after the lock that claimed its handler. So every write happens before every read.

    /// The result once sealed; a placeholder before.
    @usableFromInline
    final var value: R

    /// Whether the box is sealed, and how. Written with release ordering, under an
    /// ``EmptyBox``'s lock as it leaves `pending`, so that it may be read without the lock.
    @usableFromInline
    final let outcome: Atomic<Outcome>

    /// Whether this is a ``SealedBox``: born settled, so that an operator applied to it needs no
    /// handler (see ``Thenable/_chain(_:_:)``).
    @usableFromInline
    final let isSealedBox: Bool

    #if DEBUG
        /// Where this box's promise, or the first of its chain, was made (see ``CreationSite``).
        @usableFromInline
        final let site: SourceSite?
    #else
        /// Release builds record no site.
        @inlinable
        final var site: SourceSite? { nil }
    #endif

    /// A box holding `value`, sealed as `outcome` says or pending, for a promise made at `site`
    /// (an operator's box: its input's). Debug builds keep `site` and list a pending box in
    /// ``pendingPromises()``; ``creationSite`` hides the sites of boxes Pledge makes for itself.
    @inlinable
    init(value: R, isSealedBox: Bool, outcome: Outcome, site: SourceSite?) {
        self.value = value
        self.isSealedBox = isSealedBox
        self.outcome = Atomic(outcome)
        #if DEBUG
            self.site = site
        #endif
        super.init()
        #if DEBUG
            if outcome == .pending { conf.pending.record(self, .made(site)) }
        #endif
    }

    /// Whether the box is sealed, so that ``result()`` may be read. With `observing`, a failure
    /// it holds counts as seen, as by a handler (see ``LogEvent/unhandledRejection(_:site:)``).
    @usableFromInline
    func isSealed(observing: Bool) -> Bool { true }

    /// Stores `handler`, of lane `lane` (an actor's or the attaching thread's tag), attached by
    /// thread `thread`, or says what its caller must do instead (see ``Attachment``). Runs no
    /// handler and no user code.
    @usableFromInline
    func store(_ handler: consuming Handler, lane: UInt64, thread: UInt64) -> Attachment { .run(handler) }
}

/// What the caller of ``Box/store(_:lane:thread:)`` must do next, once every lock is dropped.
@usableFromInline
enum Attachment {
    /// Nothing: whoever fires the box runs the handler.
    case stored
    /// Stored, but only a cancellation can resolve the box now: tell the handler, so that its
    /// receiver keeps only a weak reference to the box (see ``Upstream``).
    case storedOrphaned(Handler)
    /// The box fires and nobody runs this thread's handlers: run them (``Work/help(_:lane:)``).
    case help
    /// The box has settled: call the handler, given back, now.
    case run(Handler)
    /// The handler is the first of a lazy box: start its body, which takes the box, in a run.
    case start(@Sendable (AnyBox) -> Void)
}

extension Box {
    /// The result of a sealed box (see ``value``).
    @inlinable
    final func result<T>() -> Result<T, Error> where R == Result<T, Error> {
        outcome.load(ordering: .acquiring) == .cancelled ? .failure(PMKError.cancelledError) : value
    }

    /// Whether the box is not sealed yet. Lock-free.
    @inlinable
    final var isPending: Bool { outcome.load(ordering: .acquiring) == .pending }

    /// Whether the box was cancelled, not rejected with a cancellation error by its producer.
    @inlinable
    final var endedCancelled: Bool { outcome.load(ordering: .acquiring) == .cancelled }

    /// The result if sealed, else `nil`; `observing` as in ``isSealed(observing:)``.
    @inlinable
    final func inspect<T>(observing: Bool) -> R? where R == Result<T, Error> {
        isSealed(observing: observing) ? result() : nil
    }

    /// Attaches `receiver` from outside a run (an operator, `pipe(to:)`, a fan-in), in lane
    /// `lane` (an actor's) or this thread's: it is called once the box is sealed and the lane's
    /// earlier handlers have returned; here, at once, when the box has settled.
    @inlinable
    final func attach<Rc: Receiver>(_ receiver: Rc, lane: UInt64? = nil) where Rc.Input == R {
        let thread = ThreadRun.tag
        let attachment = store(Handler(receiver, for: self), lane: lane ?? thread, thread: thread)
        // The rarer outcomes out of line: inlined, they cost every caller a count on this box.
        if case .stored = attachment { return }
        complete(attachment, lane: lane ?? thread)
    }

    /// Attaches, from outside a run, the handler that seals `box` (``Handler/init(sealing:for:)``).
    @inlinable
    final func attach<T>(sealing box: EmptyBox<R>) where R == Result<T, Error> {
        let thread = ThreadRun.tag
        let attachment = store(Handler(sealing: box, for: self), lane: thread, thread: thread)
        if case .stored = attachment { return }
        complete(attachment, lane: thread)
    }

    /// What ``attach(_:lane:)`` does when the handler was not just stored: a handler given back
    /// runs now, then a run with its work however deep; other work nested too deep is left to the
    /// running loop (a lazy body may attach to a lazy promise, whose body would start inside it).
    @usableFromInline
    final func complete(_ attachment: consuming Attachment, lane: UInt64) {
        switch attachment {
        case .run(let handler): ThreadRun.run(handler.receive(from: self), deferrable: false)
        case let other: if let work = due(other, lane: lane) { ThreadRun.run(work) }
        }
    }

    /// The work an attachment leaves to its caller, who is in a run or starts one with it.
    @usableFromInline
    final func due(_ attachment: consuming Attachment, lane: UInt64) -> Work? {
        switch attachment {
        case .stored: return nil
        case .storedOrphaned(let handler):
            handler.orphaned(self)
            return nil
        case .help: return .help(self, lane: lane)
        case .run(let handler): return handler.receive(from: self)
        case .start(let body):
            return .call {
                body(self)
                return nil
            }
        }
    }

    /// As ``attach(sealing:)``, from inside a run (an operation following what its closure
    /// returned): hands back the work instead of starting a run.
    @inlinable
    final func attachInRun<T>(sealing box: EmptyBox<R>) -> Work? where R == Result<T, Error> {
        let thread = ThreadRun.tag
        return due(store(Handler(sealing: box, for: self), lane: thread, thread: thread), lane: thread)
    }

    /// As ``attach(_:lane:)``, from inside a run.
    @inlinable
    final func attachInRun<Rc: Receiver>(_ receiver: Rc) -> Work? where Rc.Input == R {
        let thread = ThreadRun.tag
        return due(store(Handler(receiver, for: self), lane: thread, thread: thread), lane: thread)
    }

    /// Calls `body` with the result once the box is sealed: what `pipe(to:)` does.
    @inlinable
    final func pipe<T: Sendable>(_ body: @escaping @Sendable (Result<T, Error>) -> Void) where R == Result<T, Error> {
        attach(PipeReceiver(HandlerContext.attached(body)))
    }

    /// Where this box's promise was made, as users see it; `nil` in release builds and for
    /// promises Pledge made for itself.
    @usableFromInline
    final var creationSite: CreationSite? { CreationSite(recorded: site) }
}

/// The receiver behind `pipe(to:)`: a closure.
@usableFromInline
final class PipeReceiver<T: Sendable>: Receiver {
    @usableFromInline
    let body: @Sendable (Result<T, Error>) -> Void

    @inlinable
    init(_ body: @escaping @Sendable (Result<T, Error>) -> Void) { self.body = body }

    @inlinable
    func receive(from source: Box<Result<T, Error>>) -> Work? {
        body(source.result())
        return nil
    }

    @inlinable
    func abandon(from _: ObjectIdentifier) {}
}

extension PMKError {
    /// ``PMKError/cancelled`` as one `any Error` made once, so that reading a cancelled box
    /// allocates nothing; also the placeholder a pending box holds (see ``Box``).
    @usableFromInline
    static let cancelledError: any Error = PMKError.cancelled
}
