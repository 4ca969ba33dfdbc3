import Dispatch
import Pledge
import Testing

/// Very long chains resolve on a thread with a small (512 KiB) stack.
///
/// Resolution is trampolined, so its stack depth must not depend on the length of the chain: a
/// recursive implementation would need tens of megabytes here and crash the test process. The
/// handlers also mark the stack, so that the depth is measured, not only survived.
@Suite("Stress — deep chains resolve in constant stack")
struct StressDeepChainTests {
    static let smallStack = 512 * 1024
    /// How much deeper than the resolving call the handlers may run, whatever the chain length.
    static let allowedDepth: UInt = 64 * 1024

    /// Under ThreadSanitizer the chain is a quarter as long: building it costs about 25 s of
    /// CPU there at full length, and a quarter of a million steps prove the same about the stack.
    @Test("a million map(on: nil) steps on a pending promise")
    func aMillionMaps() {
        let fullLength = RendezvousScale.underThreadSanitizer ? 250_000 : 1_000_000
        let length = RendezvousScale.scaled(fullLength, minimum: 100_000)
        let probe = StressStackProbe()
        let (root, resolver) = Promise<Int>.pending()
        var tail = root
        for step in 1...length {
            // A closure that captures nothing costs no allocation of its own.
            tail = tail.map(on: nil) { $0 + 1 }
            // Every so often a second handler marks the stack from that depth of the cascade.
            if step.isMultiple(of: 50_000) || step == length { tail.pipe { _ in probe.mark() } }
        }

        let resolved = Self.resolveOnSmallStack(probe) { resolver.fulfill(0) }

        #expect(resolved, "the resolving thread did not finish in time")
        #expect(tail.value == length)
        #expect(probe.spread < Self.allowedDepth, "the stack grew by \(probe.spread) bytes")
    }

    @Test("a hundred thousand then(on: nil) steps returning resolved promises")
    func thenReturningResolvedPromises() {
        let length = RendezvousScale.scaled(100_000, minimum: 20_000)
        let probe = StressStackProbe()
        let (root, resolver) = Promise<Int>.pending()
        var tail = root
        for step in 1...length {
            tail = tail.then(on: nil) { Promise.value($0 + 1) }
            if step.isMultiple(of: 10_000) || step == length { tail.pipe { _ in probe.mark() } }
        }

        let resolved = Self.resolveOnSmallStack(probe) { resolver.fulfill(0) }

        #expect(resolved, "the resolving thread did not finish in time")
        #expect(tail.value == length)
        #expect(probe.spread < Self.allowedDepth, "the stack grew by \(probe.spread) bytes")
    }

    /// Each step's handler runs at once and returns a promise that is still pending: the
    /// previous step's result. The chain is a hundred thousand promises each waiting on the one
    /// before, and resolving the first one resolves them all, in one cascade.
    @Test("a hundred thousand then(on: nil) steps returning pending promises, resolved later")
    func thenReturningPendingPromises() {
        let length = RendezvousScale.scaled(100_000, minimum: 20_000)
        let probe = StressStackProbe()
        let (leaf, resolver) = Promise<Int>.pending()
        var tail = leaf
        for step in 0..<length {
            let inner = tail
            tail = Promise.value(()).then(on: nil) { inner }
            // Every so often a second handler marks the stack from that depth of the cascade.
            if step.isMultiple(of: 10_000) { tail.pipe { _ in probe.mark() } }
        }
        #expect(tail.isPending)

        let resolved = Self.resolveOnSmallStack(probe) { resolver.fulfill(42) }

        #expect(resolved, "the resolving thread did not finish in time")
        #expect(tail.value == 42)
        #expect(probe.spread < Self.allowedDepth, "the stack grew by \(probe.spread) bytes")
    }

    /// The rejection path of the chain above: the first promise is rejected, and the error
    /// travels through every step that adopted it.
    @Test("a hundred thousand then(on: nil) steps returning pending promises, rejected later")
    func thenReturningPendingPromisesRejected() {
        let length = RendezvousScale.scaled(100_000, minimum: 20_000)
        let (leaf, resolver) = Promise<Int>.pending()
        var tail = leaf
        for _ in 0..<length {
            let inner = tail
            tail = Promise.value(()).then(on: nil) { inner }
        }
        let caught = StressStackProbe()
        let reported = RendezvousTally()
        tail.catch(on: nil, policy: .allErrors) { error in
            caught.mark()
            if (error as? StressReason)?.id == 7 { reported.add() }
        }

        let resolved = Self.resolveOnSmallStack(caught) { resolver.reject(StressReason(7)) }

        #expect(resolved, "the resolving thread did not finish in time")
        #expect(reported.total == 1)
        #expect(caught.spread < Self.allowedDepth, "the stack grew by \(caught.spread) bytes")
    }

    /// Runs `resolve` on a new thread with a 512 KiB stack, marking `probe` just before, and
    /// waits for it.
    /// Nothing resolves this chain: its resolver is released, so the whole chain is freed at
    /// once. Each box owns the next through its handler, so a recursive teardown would run a
    /// `deinit` per link; the library releases abandoned handlers from a loop instead.
    @Test("an abandoned chain of a million steps is freed in constant stack")
    func abandonedChainIsFreedIteratively() {
        let fullLength = RendezvousScale.underThreadSanitizer ? 250_000 : 1_000_000
        let length = RendezvousScale.scaled(fullLength, minimum: 100_000)
        let probe = StressStackProbe()
        let released = RendezvousTally()
        let built = StressChainHolder()
        do {
            let (root, resolver) = Promise<Int>.pending()
            var tail = root
            for _ in 1...length {
                tail = tail.map(on: nil) { $0 + 1 }
            }
            // Released last, at the far end of the chain: it marks the stack from there.
            let marker = StressDeinitMarker(probe, released)
            _ = tail.done(on: nil) { _ in withExtendedLifetime(marker) {} }
            built.set(root: root, resolver: resolver)
        }

        // The last references go on the small-stack thread, which releases the whole chain.
        let freed = Self.resolveOnSmallStack(probe) { built.clear() }

        #expect(freed, "releasing the chain did not finish in time")
        #expect(released.total == 1, "the last handler of the chain was not released")
        #expect(probe.spread < Self.allowedDepth, "the stack grew by \(probe.spread) bytes")
    }

    /// Lazy promises whose bodies each capture the lazy promise before: nothing attaches, so the
    /// chain is freed unstarted, each body owning the rest of the chain.
    @Test("a million lazy promises, each body holding the one before, freed unstarted in constant stack")
    func unstartedLazyChainIsFreedIteratively() {
        let built = Self.lazyChain()
        let probe = StressStackProbe()
        let freed = Self.resolveOnSmallStack(probe) { built.clear() }
        #expect(freed, "releasing the chain did not finish in time")
    }

    /// The same chain, cancelled at its end before it is freed: cancelling drops the body.
    @Test("a million lazy promises cancelled at the end, then freed, in constant stack")
    func cancelledLazyChainIsFreedIteratively() {
        let built = Self.lazyChain()
        let probe = StressStackProbe()
        let freed = Self.resolveOnSmallStack(probe) {
            built.promise?.cancel()
            built.clear()
        }
        #expect(freed, "cancelling and releasing the chain did not finish in time")
    }

    /// Fan-ins nested in fan-ins: cancelling the end cancels each fan-in's inputs, down to the
    /// first promise, without recursing once per level.
    @Test(
        "a hundred thousand nested fan-ins cancelled at the end in constant stack",
        arguments: ["when", "race", "when(concurrently:)"])
    func nestedFanInsAreCancelledIteratively(kind: String) {
        let (head, _) = Promise<Void>.pending()
        var tail = head
        for _ in 0..<RendezvousScale.scaled(100_000, minimum: 20_000) {
            switch kind {
            case "when": tail = when(fulfilled: [tail])
            case "race": tail = race([tail])
            default: tail = when(fulfilled: [tail].makeIterator(), concurrently: 1).asVoid()
            }
        }
        let end = StressPromiseHolder()
        end.voidPromise = tail
        let probe = StressStackProbe()
        let cancelled = Self.resolveOnSmallStack(probe) { end.voidPromise?.cancel() }
        #expect(cancelled, "cancelling the chain did not finish in time")
        #expect(head.isCancelled)
        #expect(tail.isCancelled)
    }

    private static func lazyChain() -> StressPromiseHolder {
        let fullLength = RendezvousScale.underThreadSanitizer ? 250_000 : 1_000_000
        let length = RendezvousScale.scaled(fullLength, minimum: 100_000)
        let built = StressPromiseHolder()
        var tail = Promise<Int>.lazy { $0.fulfill(0) }
        for _ in 1...length {
            let previous = tail
            tail = Promise<Int>.lazy { seal in previous.pipe(to: seal.resolve) }
        }
        built.promise = tail
        return built
    }

    private static func resolveOnSmallStack(
        _ probe: StressStackProbe, _ resolve: @escaping @Sendable () -> Void
    ) -> Bool {
        RendezvousThreads.run(count: 1, stackSize: smallStack) { _ in
            probe.mark()
            resolve()
        }
    }
}

/// Holds the root and resolver of a chain until another thread releases them.
private final class StressChainHolder: @unchecked Sendable {
    // Safety: written once before the releasing thread starts and cleared only by that thread;
    // the thread start orders the two.
    private var root: Promise<Int>?
    private var resolver: Resolver<Int>?

    func set(root: Promise<Int>, resolver: Resolver<Int>) {
        self.root = root
        self.resolver = resolver
    }

    func clear() {
        root = nil
        resolver = nil
    }
}

/// Holds a promise until another thread releases it.
private final class StressPromiseHolder: @unchecked Sendable {
    // Safety: written before the releasing thread starts and then used only by that thread; the
    // thread start orders the two.
    var promise: Promise<Int>?
    var voidPromise: Promise<Void>?

    func clear() {
        promise = nil
        voidPromise = nil
    }
}

/// Marks the stack and counts itself when it is released.
private final class StressDeinitMarker: Sendable {
    let probe: StressStackProbe
    let released: RendezvousTally

    init(_ probe: StressStackProbe, _ released: RendezvousTally) {
        self.probe = probe
        self.released = released
    }

    deinit {
        probe.mark()
        released.add()
    }
}
