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
/// while code that resolves a promise and waits for its handlers inside a handler keeps working
/// at the usual nesting depths.
@usableFromInline
enum Trampoline {
    /// How many runs may nest on one thread before new work is left to the running loop.
    @inlinable
    static var maximumNesting: Int { 16 }

    /// Runs `first` and every step it leads to, or, when the thread is nested too deep, leaves it
    /// to the innermost running loop.
    @inlinable
    static func run(_ first: consuming Step?) {
        switch consume first {
        case .none:
            return
        case .some(let step):
            let thread = ThreadRunState.current
            guard thread.pointee.depth < maximumNesting else {
                thread.pointee.deferred.push(step)
                return
            }
            thread.pointee.depth += 1
            var run = Run(sharingBlocksOn: nil, tag: thread.pointee.tag)
            drain(step, &run, thread)
            thread.pointee.depth -= 1
        }
    }

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

    /// Starts a run on `thread`, however deep it is nested, with `start`, which is given
    /// `first` to consume (a closure cannot consume what it captures).
    @inlinable @inline(__always)
    static func run<First: ~Copyable>(
        on thread: UnsafeMutablePointer<ThreadRunState>, _ first: consuming First,
        _ start: (inout Run, consuming First) -> Step?
    ) {
        thread.pointee.depth += 1
        var run = Run(sharingBlocksOn: nil, tag: thread.pointee.tag)
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
        var run = Run(sharingBlocksOn: queue, tag: thread.pointee.tag)
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
    /// A number no other live thread has: what a firing box records of the thread that sealed
    /// it, so that this thread, attaching to it again, leaves the box's handlers to its own
    /// loop instead of running them nested (see ``Box/attach(_:_:)``).
    @usableFromInline
    let tag: UInt32

    /// How many runs are active on this thread, one inside another.
    @usableFromInline
    var depth: Int

    /// Work left to the innermost running loop (see ``Trampoline``).
    @usableFromInline
    var deferred: StepStack

    @usableFromInline
    init() {
        tag = ThreadTags.take()
        depth = 0
        deferred = StepStack()
    }

    /// This thread's state.
    ///
    /// Safety: the pointer is used only by the current thread, for as long as it runs (see
    /// ``key``). Accesses through it never overlap: nested runs touch the state only while the
    /// loops around them wait for the call that started them to return.
    @inlinable
    static var current: UnsafeMutablePointer<ThreadRunState> {
        if let state = pthread_getspecific(key) {
            return state.assumingMemoryBound(to: ThreadRunState.self)
        }
        return makeCurrent()
    }

    /// The thread-local slot holding each thread's state; its destructor frees the state when
    /// the thread exits.
    @usableFromInline
    static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { state in
            // Safety: the slot only ever holds a state that `makeCurrent` allocated and
            // initialised, and this destructor runs once, when its thread exits.
            #if canImport(Darwin)
                let pointer = state.assumingMemoryBound(to: ThreadRunState.self)
            #else
                guard let pointer = state?.assumingMemoryBound(to: ThreadRunState.self) else { return }
            #endif
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
        pthread_setspecific(key, state)
        return state
    }
}

/// Hands out thread tags: small numbers, each held by one live thread at a time, that fit in a
/// box's state word above its phase and lock bits.
@usableFromInline
enum ThreadTags {
    /// The largest tag the state word can hold.
    static let maximum: UInt32 = .max >> BoxPhase.sealerShift

    /// Tags given back by threads that exited, and the next tag never handed out.
    static let pool = LockedValue<(free: [UInt32], next: UInt32)>(([], 1))

    /// A tag no other live thread holds. Past ``maximum`` live threads, which no process
    /// reaches, later threads share tag 0: a thread then only runs a firing box's handlers less
    /// often than it could.
    static func take() -> UInt32 {
        pool.withLock { pool in
            if let tag = pool.free.popLast() { return tag }
            guard pool.next <= maximum else { return 0 }
            defer { pool.next += 1 }
            return pool.next
        }
    }

    /// Returns `tag`, when its thread exits.
    static func give(back tag: UInt32) {
        guard tag != 0 else { return }
        pool.withLock { $0.free.append(tag) }
    }
}
