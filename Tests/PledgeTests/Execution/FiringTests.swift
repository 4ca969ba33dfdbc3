import Dispatch
import Pledge
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A promise that is resolved but still running its handlers: a handler attached meanwhile never
/// waits for a handler another thread attached, and starts after the handlers its own thread
/// attached before it have returned.
@Suite struct FiringTests {
    /// The scenario from the issue that reported it: the only handler waits for another thread,
    /// which attaches to the same promise and waits for that new handler.
    @Test func aHandlerThatWaitsForAnotherThreadAttachingToItsOwnPromiseDoesNotDeadlock() {
        let finished = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            let (promise, resolver) = Promise<Int>.pending()
            promise.done(on: nil) { _ in
                let attached = DispatchSemaphore(value: 0)
                DispatchQueue.global().async {
                    _ = try? promise.map(on: nil) { $0 }.wait()
                    attached.signal()
                }
                _ = attached.wait(timeout: .testTimeout)
            }.ignoreErrors()
            resolver.fulfill(1)
            finished.signal()
        }

        #expect(finished.wait(timeout: .testTimeout) == .success)
    }

    /// While the resolving thread runs a handler that does not return, a handler another thread
    /// attaches runs at once on that thread.
    @Test func aBlockedLastHandlerDoesNotDelayAHandlerAttachedByAnotherThread() {
        let firing = BlockedFiring()
        #expect(firing.resolve())

        let ranHere = AtomicFlag()
        firing.promise.pipe { _ in ranHere.set() }

        #expect(ranHere.isSet)
        firing.release()
        #expect(firing.waitUntilResolved())
    }

    /// While the resolving thread is stuck in another thread's handler, the handlers this thread
    /// attached have not started. Attaching one more, this thread runs them itself, in attachment
    /// order, and then the new one, without waiting for the stuck one.
    @Test func anotherThreadAttachingWhileAnEarlierHandlerBlocksRunsTheWaitingHandlersInOrder() {
        let order = Recorder<String>()
        let threads = Recorder<String>()
        let attacher = pthread_self()
        let firing = BlockedFiring()
        firing.promise.pipe { _ in order.append("second") }
        for name in ["third", "fourth"] {
            _ = firing.promise.map(on: nil) { _ in
                order.append(name)
                threads.append(pthread_equal(pthread_self(), attacher) != 0 ? "attacher" : "resolver")
            }
        }
        #expect(firing.resolve())

        firing.promise.pipe { _ in order.append("fifth") }

        #expect(order.all == ["second", "third", "fourth", "fifth"])
        #expect(threads.all == ["attacher", "attacher"])
        firing.release()
        #expect(firing.waitUntilResolved())
    }

    /// A thread that attached handlers before resolution and more while the resolving thread is
    /// stuck in an earlier handler sees its own handlers start in the order it attached them.
    @Test func aThreadsHandlersAttachedBeforeAndDuringFiringStartInItsOrder() {
        let order = Recorder<Int>()
        let firing = BlockedFiring()
        for index in 0..<5 { firing.promise.pipe { _ in order.append(index) } }
        #expect(firing.resolve())

        for index in 5..<10 { _ = firing.promise.map(on: nil) { _ in order.append(index) } }
        firing.release()

        #expect(firing.waitUntilResolved())
        #expect(order.all == Array(0..<10))
    }

    /// The thread that resolved a promise, attaching to it again from one of its handlers,
    /// leaves the new handler to its own loop: the cascades of the handlers attached before keep
    /// running first (see also the 2.2.6 tests).
    @Test func theResolvingThreadAttachingFromAHandlerLeavesTheNewOneToItsLoop() {
        let (promise, resolver) = Promise<Int>.pending()
        let order = Recorder<String>()
        promise.pipe { _ in
            order.append("first")
            promise.pipe { _ in order.append("third") }
            order.append("first returns")
        }
        promise.pipe { _ in order.append("second") }

        resolver.fulfill(1)

        #expect(order.all == ["first", "first returns", "second", "third"])
    }

    /// The same when the new handler is attached from deeper down: inside one of the box's
    /// handlers (attached by another thread), from the handler of a second promise it resolves.
    /// The resolving thread is still the first box's sealer there, so it leaves the new handler
    /// to that loop too, after every handler attached before it.
    @Test func theResolvingThreadAttachingFromANestedResolveLeavesTheNewOneToItsLoop() {
        let (promise, resolver) = Promise<Int>.pending()
        let (inner, innerResolver) = Promise<Int>.pending()
        let order = Recorder<String>()
        inner.pipe { _ in promise.pipe { _ in order.append("attached last") } }
        // Lanes of two other threads, then the resolving thread's own.
        #expect(
            RendezvousThreads.run(count: 1) { _ in
                promise.pipe { _ in
                    order.append("first")
                    innerResolver.fulfill(0)
                    order.append("first returns")
                }
            })
        #expect(RendezvousThreads.run(count: 1) { _ in promise.pipe { _ in order.append("second") } })
        promise.pipe { _ in order.append("third") }

        resolver.fulfill(1)

        #expect(order.all == ["first", "first returns", "second", "third", "attached last"])
    }

    /// A handler left waiting by a thread that has exited belongs to nobody's lane but that
    /// thread's: a new thread attaching while the promise fires runs only its own handler (the
    /// new thread never inherits the old one's identity), and the resolving thread runs the
    /// exited thread's handler in its turn.
    @Test func aNewThreadNeverRunsAHandlerOfAThreadThatHasExited() {
        let firing = BlockedFiring()
        let order = Recorder<String>()
        #expect(onAThreadThatExits { firing.promise.pipe { _ in order.append("exited thread's") } })
        #expect(firing.resolve())

        #expect(onAThreadThatExits { firing.promise.pipe { _ in order.append("new thread's") } })

        #expect(order.all == ["new thread's"])
        firing.release()
        #expect(firing.waitUntilResolved())
        #expect(order.all == ["new thread's", "exited thread's"])
    }

    /// A thread keeps its place in the order to the end: a handler attached by code that runs as
    /// the thread exits, after Pledge has freed the thread's state, still follows the ones the
    /// thread attached before. Attached while the promise fires, it makes the thread run those
    /// first.
    @Test func aThreadsExitHandlersAttachAfterItsEarlierHandlers() {
        let firing = BlockedFiring()
        let order = Recorder<String>()
        let resolved = Locked(false)
        let exited = onAThreadThatExits(
            {
                firing.promise.pipe { _ in order.append("first") }
                resolved.withLock { $0 = firing.resolve() }
            },
            atExit: { firing.promise.pipe { _ in order.append("attached at exit") } })

        #expect(exited)
        #expect(resolved.withLock { $0 })
        #expect(order.all == ["first", "attached at exit"])
        firing.release()
        #expect(firing.waitUntilResolved())
    }

    /// A thread's handler never starts before its earlier one has returned, even while another
    /// thread runs that one: the new handler waits for it (and only for it), and runs next.
    @Test func aHandlerWaitsForItsOwnThreadsEarlierHandlerRunningOnAnotherThread() {
        let (promise, resolver) = Promise<Int>.pending()
        let order = Recorder<String>()
        let running = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        promise.pipe { _ in
            running.signal()
            _ = release.wait(timeout: .testTimeout)
            order.append("first")
        }
        let resolved = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            resolver.fulfill(1)
            resolved.signal()
        }
        #expect(running.wait(timeout: .testTimeout) == .success)

        promise.pipe { _ in order.append("second") }

        #expect(order.all.isEmpty)
        release.signal()
        #expect(resolved.wait(timeout: .testTimeout) == .success)
        #expect(order.all == ["first", "second"])
    }
}
