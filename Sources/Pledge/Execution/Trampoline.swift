import CPledgeThreadLocal
import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs steps from a loop, so that resolving a chain of any length uses constant stack depth.
///
/// Every path that runs handlers goes through here: sealing a box (``EmptyBox/resolve(_:)``),
/// attaching to a box that is settled or still firing (``Box/attach(_:_:)``), the body of a block
/// Pledge dispatched. Handlers never run the handlers of the boxes they seal; they hand back a
/// ``Step`` that does, and the loop runs it.
///
/// User code can still start a run from inside a handler (a `Resolver` called there, say), which
/// nests one run inside another. The thread counts how deep its runs are nested; past
/// ``maximumNesting``, a new run does not start but leaves its work to the innermost running
/// loop, which runs it as soon as the current handler returns. So chains linked through
/// resolvers, `pipe(to:)` or handlers that attach further handlers do not grow the stack either,
/// while code that resolves a promise and waits for its handlers inside a handler keeps working:
/// `wait()` runs the work left to the loop before it blocks (see ``runLeftWork()``).
@usableFromInline
enum Trampoline {
    /// How many runs may nest on one thread before new work is left to the running loop.
    @inlinable
    static var maximumNesting: Int { 16 }

    /// Starts a run with `start`, then runs every step it leads to; or, when the thread is nested
    /// too deep, leaves the same work, as `deferred` makes it, to the innermost running loop. For
    /// work that may nest once per link of a chain: resolving, attaching.
    @inlinable
    static func run(
        on thread: UnsafeMutablePointer<ThreadRunState> = ThreadRunState.current, _ start: (inout Run) -> Step?,
        deferred: () -> Step
    ) {
        guard thread.pointee.depth < maximumNesting else {
            thread.pointee.deferred.push(deferred())
            return
        }
        run(on: thread, sharingBlocksOn: nil, start)
    }

    /// Starts a run with `start`, however deep the thread is nested, then runs every step it
    /// leads to. For work that nests only where the code calling it does: the body of a block
    /// Pledge dispatched, an operator applied at once to a settled promise.
    ///
    /// - Parameter queue: the queue whose block this run is, when the block may share (see
    ///   ``BlockSharing``).
    @inlinable
    static func run(sharingBlocksOn queue: DispatchQueue? = nil, _ start: (inout Run) -> Step?) {
        run(on: ThreadRunState.current, sharingBlocksOn: queue, start)
    }

    /// Runs the work nested code on this thread left to the innermost running loop (see
    /// ``maximumNesting``), now, in a run of its own: for code about to block the thread, which
    /// that work may be what it waits for.
    @usableFromInline
    static func runLeftWork() {
        let thread = ThreadRunState.current
        guard !thread.pointee.deferred.isEmpty else { return }
        run(on: thread, sharingBlocksOn: nil) { _ in nil }
    }

    /// Starts a run on `thread`, however deep it is nested, with `start`, which is given
    /// `first` to consume (a closure cannot consume what it captures).
    @inlinable @inline(__always)
    static func run<First: ~Copyable>(
        on thread: UnsafeMutablePointer<ThreadRunState>, _ first: consuming First,
        _ start: (inout Run, consuming First) -> Step?
    ) {
        thread.pointee.depth += 1
        var run = Run(sharingBlocksOn: nil, on: thread)
        let step = start(&run, first)
        drain(step, &run, thread)
        thread.pointee.depth -= 1
    }

    @inlinable @inline(__always)
    static func run(
        on thread: UnsafeMutablePointer<ThreadRunState>, sharingBlocksOn queue: DispatchQueue?,
        _ start: (inout Run) -> Step?
    ) {
        thread.pointee.depth += 1
        var run = Run(sharingBlocksOn: queue, on: thread)
        let first = start(&run)
        drain(first, &run, thread)
        thread.pointee.depth -= 1
    }

    /// The loop: runs `first`, then whatever each step hands back, then the stack, newest
    /// first; once both are empty, the tail the block kept for its end (see ``BlockSharing``).
    /// Work that nested code left to this loop runs right after the step that called it.
    @inlinable @inline(__always)
    static func drain(_ first: consuming Step?, _ run: inout Run, _ thread: UnsafeMutablePointer<ThreadRunState>) {
        // Most runs end with their first work: nothing handed back, stacked, left or kept.
        if first == nil, run.stack.isEmpty, thread.pointee.deferred.isEmpty, run.queue == nil { return }
        loop(first, &run, thread)
    }

    /// The body of ``drain(_:_:_:)``.
    @inlinable
    static func loop(_ first: consuming Step?, _ run: inout Run, _ thread: UnsafeMutablePointer<ThreadRunState>) {
        var current = first
        while true {
            if !thread.pointee.deferred.isEmpty {
                // What nested code left to this loop would have run inside the step that just
                // ended, had it nested: it goes before that step's own next step.
                if let step = current.take() { run.stack.push(step) }
                thread.pointee.deferred.moveAll(onto: &run.stack)
            }
            if current == nil { current = run.stack.pop() }
            if let step = current.take() {
                current = step.run(&run)
            } else if let tail = run.takeTail() {
                current = tail.run(.runInline, &run)
            } else {
                return
            }
        }
    }
}

/// What the trampoline keeps per thread: the thread's tag, how deep its runs are nested, and the
/// work nested code left to the innermost running loop.
///
/// Allocated once per thread, on its first run, and freed when the thread exits.
@usableFromInline
struct ThreadRunState: ~Copyable {
    /// A number no other live thread has: the lane of the handlers this thread attaches (see
    /// ``StateWord``).
    @usableFromInline
    let tag: UInt32

    /// The box one of whose handlers this thread's innermost firing loop for a box it sealed is
    /// calling now, if any: attaching to that box again, the thread leaves the new handler to
    /// that loop (see ``EmptyBox/store(_:lane:sealing:)``).
    @usableFromInline
    var sealing: ObjectIdentifier?

    /// How many runs are active on this thread, one inside another.
    @usableFromInline
    var depth: Int

    /// Work left to the innermost running loop (see ``Trampoline``).
    @usableFromInline
    var deferred: StepStack

    @usableFromInline
    init() {
        tag = ThreadTags.take()
        sealing = nil
        depth = 0
        deferred = StepStack()
    }

    /// This thread's state.
    ///
    /// Safety: the pointer is used only by the current thread, for as long as it runs (see
    /// ``exitKey``). Accesses through it never overlap: nested runs touch the state only while
    /// the loops around them wait for the call that started them to return.
    @inlinable
    static var current: UnsafeMutablePointer<ThreadRunState> {
        if let state = pledge_get_thread_run_state() {
            return state.assumingMemoryBound(to: ThreadRunState.self)
        }
        return makeCurrent()
    }

    /// A thread-specific key whose destructor frees the thread's state when the thread exits.
    /// The state itself is found through a C thread-local variable, which is quicker to read.
    @usableFromInline
    static let exitKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { state in
            // Safety: the slot only ever holds a state that `makeCurrent` allocated and
            // initialised, and this destructor runs once for it, on its thread, as it exits.
            #if canImport(Darwin)
                let pointer = state.assumingMemoryBound(to: ThreadRunState.self)
            #else
                guard let pointer = state?.assumingMemoryBound(to: ThreadRunState.self) else { return }
            #endif
            // Pledge code run by a later exit handler makes a new state, which this key frees.
            pledge_set_thread_run_state(nil)
            ThreadTags.give(back: pointer.pointee.tag)
            pointer.deinitialize(count: 1)
            pointer.deallocate()
        }
        return key
    }()

    @usableFromInline
    static func makeCurrent() -> UnsafeMutablePointer<ThreadRunState> {
        let state = UnsafeMutablePointer<ThreadRunState>.allocate(capacity: 1)
        state.initialize(to: ThreadRunState())
        pthread_setspecific(exitKey, state)
        pledge_set_thread_run_state(state)
        return state
    }
}

/// Hands out thread tags: small numbers, each held by one live thread at a time, that fit in a
/// lane of a box's state word (see ``StateWord``).
@usableFromInline
enum ThreadTags {
    /// The largest tag: the one that threads share once every smaller one is held.
    static let shared: UInt32 = Lanes.mask

    /// Tags given back by threads that exited, and the next tag never handed out.
    static let pool = LockedValue<(free: [UInt32], next: UInt32)>(([], 1))

    /// A tag no other live thread holds. Past 16,382 live threads, later ones share
    /// ``shared``: their handlers on one box then take turns as if one thread had attached
    /// them all, which keeps each thread's order but lets one of them wait for another's.
    static func take() -> UInt32 {
        pool.withLock { pool in
            if let tag = pool.free.popLast() { return tag }
            guard pool.next < shared else { return shared }
            defer { pool.next += 1 }
            return pool.next
        }
    }

    /// Returns `tag`, when its thread exits.
    static func give(back tag: UInt32) {
        guard tag != shared else { return }
        pool.withLock { $0.free.append(tag) }
    }
}
