import CPledgeThreadLocal
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// One unit of work for a thread's run.
@usableFromInline
enum Work {
    /// Run the handlers of this sealed box, as the thread that sealed it.
    case fire(AnyBox)
    /// Run the handlers of this lane (the thread's own, or an actor's it attached for) of this
    /// firing box (see ``HandlerList``).
    case help(AnyBox, lane: UInt64)
    /// Run an operation a dispatcher called back inline while the thread was nested too deep.
    case call(() -> Work?)
}

/// What the engine keeps per thread: the work of its runs, how deep they nest, and the thread's
/// tag, the lane of the handlers it attaches (see ``HandlerList``). It lives at a fixed address
/// from the thread's first run to its exit, passed around as ``ThreadRun`` (no reference count).
///
/// A *run* is one loop over the thread's work, which every path that runs handlers goes through.
/// Handlers never run the handlers of the boxes they seal: they hand the box back and the loop
/// fires it, so a chain of any length resolves in constant stack. A resolver called in a handler
/// nests a run; past ``maximumNesting`` nested runs, new work is left to the innermost running
/// loop, which runs it once the current work returns (`wait()` first, ``ThreadRun/runLeftWork()``):
/// chains linked through resolvers or `pipe(to:)` do not grow the stack either.
@usableFromInline
struct ThreadState {
    /// A number no other thread or actor has ever had; never 0.
    @usableFromInline let tag: UInt64
    /// How many runs may nest on one thread before new work is left to the running loop.
    @usableFromInline let maximumNesting = 16
    /// How many runs are active on this thread, one inside another.
    @usableFromInline var depth = 0
    /// Work of the active runs, last first; each run owns what is above its start.
    @usableFromInline var stack: [Work] = []
    /// Work left to the innermost running loop by code nested too deep.
    @usableFromInline var deferred: [Work] = []
    /// Objects waiting to be released iteratively (see ``ThreadRun/release(_:)``), and whether
    /// the loop that releases them runs.
    @usableFromInline var parked: [Any] = []
    @usableFromInline var releasing = false
    /// Inputs of cancelled fan-ins left to this thread's cancel loops, and how many loops run.
    @usableFromInline var cancelledInputs: [(AnyBox, CancelReason)] = []
    @usableFromInline var cancelLoops = 0

    @usableFromInline
    init(tag: UInt64) {
        self.tag = tag
    }
}

/// The address of this thread's ``ThreadState``: what the engine passes around.
///
/// Safety: the state is allocated by `makeCurrent` and freed by the thread's exit destructor,
/// after which none of the thread's code runs. Only its own thread uses it, each access one
/// short statement, so accesses never overlap.
@usableFromInline
typealias ThreadRun = UnsafeMutablePointer<ThreadState>

extension UnsafeMutablePointer where Pointee == ThreadState {
    /// This thread's state, made on first use and freed when the thread exits.
    @inlinable
    static var current: ThreadRun {
        guard let pointer = pledge_get_thread_run_state() else { return makeCurrent() }
        return pointer.assumingMemoryBound(to: ThreadState.self)
    }

    @usableFromInline
    static func makeCurrent() -> ThreadRun {
        // A thread keeps its tag for life, even when an exit handler that runs after Pledge's
        // makes its state again: the handlers it attached before are still in its lane.
        var tag = UInt64(pledge_get_thread_tag())
        if tag == 0 {
            tag = ThreadState.takeTag()
            pledge_set_thread_tag(CUnsignedLongLong(tag))
        }
        let state = ThreadRun.allocate(capacity: 1)
        state.initialize(to: ThreadState(tag: tag))
        pthread_setspecific(threadExitKey, state)
        pledge_set_thread_run_state(state)
        return state
    }

    /// Runs `work` and everything it leads to before returning; or, when the thread is nested
    /// too deep, leaves it to the innermost running loop.
    @inlinable
    static func run(_ work: consuming Work) {
        let thread = current
        guard thread.pointee.depth < thread.pointee.maximumNesting else { return thread.pointee.deferred.append(work) }
        thread.start(work)
    }

    /// Starts a run with `first`, however deep the thread is nested, and does everything it
    /// leads to: for work that nests only as deep as the code calling it (the body of a block
    /// Pledge dispatched, an operator applied at once to a settled promise), which computes
    /// `first` by calling user code, outside the run.
    @inlinable
    func start(_ first: consuming Work?) {
        pointee.depth += 1
        let base = pointee.stack.count
        var next = first
        while true {
            if !pointee.deferred.isEmpty {
                // Left by nested code that would have run inside the work just done: next.
                if let work = next.take() { pointee.stack.append(work) }
                pointee.stack.append(contentsOf: pointee.deferred.reversed())
                pointee.deferred.removeAll(keepingCapacity: true)
            }
            if case .none = next, pointee.stack.count > base { next = pointee.stack.popLast() }
            guard let work = next.take() else { break }
            let mark = pointee.stack.count
            switch consume work {
            case .fire(let box): next = box.fire(on: self, helping: nil)
            case .help(let box, let lane): next = box.fire(on: self, helping: lane)
            case .call(let body): next = body()
            }
            // What the work scheduled beyond `next` runs after next's own cascade, in the order it
            // was scheduled: depth first.
            if pointee.stack.count - mark > 1 { pointee.stack[mark...].reverse() }
        }
        pointee.depth -= 1
    }

    /// Schedules `work` in the current run, after the work running now: for the firing loop
    /// (``AnyBox/fire(on:helping:)``), which runs inside the run; everything else hands its work
    /// back instead.
    @inlinable
    func schedule(_ work: Work) {
        pointee.stack.append(work)
    }

    /// Runs, now, the work that nested code on this thread left to the innermost running loop:
    /// for code about to block the thread, since that work may be what it waits for.
    @usableFromInline
    static func runLeftWork() {
        let thread = current
        guard !thread.pointee.deferred.isEmpty else { return }
        thread.start(nil)
    }

    /// Releases `item` (the handlers of a box freed unresolved, or an operation they held) now,
    /// or, when this thread is releasing already, right after: each handler owns the rest of its
    /// chain, so releasing a long abandoned chain recursively would run a `deinit` per link on
    /// the stack.
    @usableFromInline
    static func release(_ item: consuming Any) {
        let thread = current
        thread.pointee.parked.append(item)
        guard !thread.pointee.releasing else { return }
        thread.pointee.releasing = true
        // Each item is released at the end of its iteration; that may park more.
        while let item = thread.pointee.parked.popLast() { _ = item }
        thread.pointee.releasing = false
    }
}

/// The key whose destructor frees a thread's ``ThreadState`` as the thread exits (the state is
/// read through a C thread-local variable, one load, and found here only to be freed).
let threadExitKey: pthread_key_t = {
    var key = pthread_key_t()
    pthread_key_create(&key) { pointer in
        // Pledge code that a later exit handler runs makes a new state, which this frees.
        pledge_set_thread_run_state(nil)
        #if canImport(Darwin)
            let state = pointer.assumingMemoryBound(to: ThreadState.self)
        #else
            guard let state = pointer?.assumingMemoryBound(to: ThreadState.self) else { return }
        #endif
        state.deinitialize(count: 1)
        state.deallocate()
    }
    return key
}()

extension ThreadState {
    /// The next tag to hand out.
    static let nextTag = Atomic<UInt64>(1)

    /// A tag no other thread or actor has ever held: never given back, so that a handler left
    /// behind by a thread that exited can never pass for a new thread's (64 bits do not run out).
    static func takeTag() -> UInt64 {
        nextTag.wrappingAdd(1, ordering: .relaxed).oldValue
    }
}
