import CPledgeThreadLocal
import Synchronization

/// One unit of work for a thread's run.
@usableFromInline
enum Work {
    /// Run the handlers of this sealed box, as the thread that sealed it.
    case fire(AnyBox)
    /// Run this lane's handlers (the thread's, or an actor's it attached for) of this firing box
    /// (see ``HandlerList``).
    case help(AnyBox, lane: UInt64)
    /// Run an operation: a lazy body, or one a dispatcher called back inline, nested too deep.
    case call(() -> Work?)
}

/// The engine's entry points into this thread's runs.
///
/// A *run* is one loop over a thread's work, which every path that runs handlers goes through.
/// Handlers never run the handlers of the boxes they seal: they hand the box back and the loop
/// fires it, so a chain of any length resolves in constant stack. A resolver called in a handler
/// nests a run; past ``maximumNesting`` nested runs, new work is left to the innermost running
/// loop, which runs it once the current work returns (`wait()` first, ``runLeftWork()``): chains
/// linked through resolvers, `pipe(to:)` or lazy bodies do not grow the stack either.
///
/// A run keeps its own work in a local array; a thread's runs share C thread-locals (its tag, the
/// nesting depth, counters) and, for the rare cases that need lists, a ``ThreadState``.
@usableFromInline
enum ThreadRun {
    /// How many runs may nest on one thread before new work is left to the running loop.
    static let maximumNesting = 16

    /// The calling thread's tag: its lane, for the handlers it attaches. A number no other thread
    /// or actor has ever had; never 0. A thread keeps it for life, even in exit handlers that run
    /// after Pledge's: the handlers it attached before are still in its lane.
    @inlinable
    static var tag: UInt64 {
        let tag = pledge_get_thread_tag()
        return tag != 0 ? UInt64(tag) : newTag()
    }

    @usableFromInline
    static func newTag() -> UInt64 {
        let tag = takeTag()
        pledge_set_thread_tag(CUnsignedLongLong(tag))
        return tag
    }

    /// The next tag to hand out. A tag no other thread or actor has ever held: never given back,
    /// so that a handler left behind by a thread that exited can never pass for a new thread's.
    static let nextTag = Atomic<UInt64>(1)
    static func takeTag() -> UInt64 { nextTag.wrappingAdd(1, ordering: .relaxed).oldValue }

    /// Runs `first` and everything it leads to before returning, in a run of its own; or, when
    /// the thread is nested too deep and `deferrable`, leaves it to the innermost running loop.
    ///
    /// Work that nests only as deep as its caller (a block Pledge dispatched, an operator applied
    /// at once to a settled promise, whose `first` comes from user code outside any run) is not
    /// `deferrable`: it starts a run however deep.
    @usableFromInline
    static func run(_ first: consuming Work?, deferrable: Bool = true) {
        if deferrable, pledge_get_thread_depth() >= maximumNesting {
            if let work = first.take() {
                ThreadState.current.deferred.append(work)
                pledge_set_thread_waiting(pledge_get_thread_waiting() + 1)
            }
            return
        }
        pledge_set_thread_depth(pledge_get_thread_depth() + 1)
        var stack: [Work] = []
        var next = first
        while true {
            if pledge_get_thread_waiting() > 0 {
                // Left by nested code that would have run inside the work just done: next.
                if let work = next.take() { stack.append(work) }
                stack.append(contentsOf: ThreadState.current.takeDeferred().reversed())
            }
            if case .none = next { next = stack.popLast() }
            guard let work = next.take() else { break }
            let mark = stack.count
            switch consume work {
            case .fire(let box): next = box.fire(helping: nil, scheduling: &stack)
            case .help(let box, let lane): next = box.fire(helping: lane, scheduling: &stack)
            case .call(let body): next = body()
            }
            // What the work scheduled beyond `next` runs after next's own cascade, in the order it
            // was scheduled: depth first.
            if stack.count - mark > 1 { stack[mark...].reverse() }
        }
        pledge_set_thread_depth(pledge_get_thread_depth() - 1)
    }

    /// Runs now the work nested code left to the running loop, which a blocking caller may await.
    @usableFromInline
    static func runLeftWork() { if pledge_get_thread_waiting() > 0 { run(nil, deferrable: false) } }

    /// Releases `item` (a freed box's handlers, an operation they held, an upstream) now, or right
    /// after when this thread is releasing already: each may own the rest of a chain, whose
    /// `deinit`s would otherwise recurse, one stack frame per link.
    @usableFromInline
    static func release(_ item: consuming Any) {
        // The thread-local is 0 outside a release, 1 inside, 2 once something is parked.
        guard pledge_get_thread_releasing() == 0 else {
            pledge_set_thread_releasing(2)
            return ThreadState.current.parked.append(item)
        }
        pledge_set_thread_releasing(1)
        _ = consume item
        // What releasing it parked, and so on, each released at the end of its iteration.
        if pledge_get_thread_releasing() == 2 {
            let thread = ThreadState.current
            while let parked = thread.parked.popLast() { _ = parked }
        }
        pledge_set_thread_releasing(0)
    }
}

/// The lists a thread's runs share (see ``ThreadRun``): made on first use, released as the
/// thread exits, never shared with another thread, so not `Sendable`.
final class ThreadState {
    /// Work left to the innermost running loop by code nested too deep; counted in the
    /// thread-local `pledge_thread_waiting`, so that the loop looks here only when some is left.
    var deferred: [Work] = []
    /// Objects waiting to be released iteratively (see ``ThreadRun/release(_:)``).
    var parked: [Any] = []
    /// Inputs of cancelled fan-ins left to this thread's cancel loops (see ``cancelChain(from:_:)``);
    /// counted in the thread-local `pledge_thread_cancelled_inputs`.
    var cancelledInputs: [(AnyBox, CancelReason)] = []

    /// This thread's state, made on first use.
    static var current: ThreadState {
        // Safety: a non-null pointer is the retained `ThreadState` that `makeCurrent` installed
        // on this thread; only the thread's exit handler releases it, after which none of its
        // code reads the pointer again (the exit handler clears it first).
        if let raw = unsafe pledge_get_thread_run_state() {
            return unsafe Unmanaged<ThreadState>.fromOpaque(raw).takeUnretainedValue()
        }
        return makeCurrent()
    }

    static func makeCurrent() -> ThreadState {
        let state = ThreadState()
        // Safety: the retain taken here is the one `pledge_release_thread_run_state` gives back.
        unsafe pledge_install_thread_run_state(Unmanaged.passRetained(state).toOpaque())
        return state
    }

    /// The work left to the running loop, which takes it all.
    func takeDeferred() -> [Work] {
        let taken = exchange(&deferred, with: [])
        pledge_set_thread_waiting(0)
        return taken
    }

    /// Leaves a cancelled fan-in's input to this thread's innermost cancel loop.
    func leave(_ input: (AnyBox, CancelReason)) {
        cancelledInputs.append(input)
        pledge_set_thread_cancelled_inputs(pledge_get_thread_cancelled_inputs() + 1)
    }

    /// The cancelled fan-in's input left last (see ``cancelChain(from:_:)``), when one is left.
    func takeCancelledInput() -> (AnyBox?, CancelReason) {
        pledge_set_thread_cancelled_inputs(pledge_get_thread_cancelled_inputs() - 1)
        guard let (input, reason) = cancelledInputs.popLast() else { return (nil, .cancelled) }
        return (input, reason)
    }
}

/// Gives back the retain `ThreadState.makeCurrent` took, as the thread exits (called from C).
@_cdecl("pledge_release_thread_run_state")
func releaseThreadState(_ raw: UnsafeMutableRawPointer) {
    // Safety: `raw` is the pointer `makeCurrent` installed, handed over once by its exit handler.
    unsafe Unmanaged<ThreadState>.fromOpaque(raw).release()
}
