import Dispatch
import Testing

// `dispatch(_:orDrop:)`, which Pledge's operators call to hear about dropped work, is internal.
@testable import Pledge

@Suite struct InvalidatableQueueTests {
    @Test func runsEveryBodyOnItsQueueInOrder() {
        let queue = TestQueues.serial("invalidatable.runs")
        let dispatcher = InvalidatableQueue(queue: queue)
        let runs = Recorder<(index: Int, onQueue: Bool)>()

        for index in 0..<20 {
            dispatcher.dispatch { runs.append((index, TestQueues.isOn(queue))) }
        }
        queue.drain()

        #expect(runs.all.map(\.index) == Array(0..<20))
        #expect(runs.all.allSatisfy { $0.onQueue })
    }

    @Test func runsOnTheMainQueueWhenGivenIt() {
        let dispatcher = InvalidatableQueue(queue: .main)
        let onMain = Recorder<Bool>()
        let done = CompletionCount(expecting: 1)

        dispatcher.dispatch {
            onMain.append(TestQueues.isOn(.main))
            done.complete()
        }

        #expect(done.wait())
        #expect(onMain.all == [true])
    }

    @Test func isInvalidatedTurnsTrueOnInvalidateAndStaysTrue() {
        let dispatcher = InvalidatableQueue(queue: TestQueues.serial("invalidatable.flag"))
        #expect(!dispatcher.isInvalidated)

        dispatcher.invalidate()
        #expect(dispatcher.isInvalidated)
        dispatcher.invalidate()
        #expect(dispatcher.isInvalidated)
    }

    @Test func afterInvalidateNoBodyRunsAndEachDropIsReportedOnceOnTheCallingThread() {
        let queue = TestQueues.serial("invalidatable.after")
        let dispatcher = InvalidatableQueue(queue: queue)
        let bodies = AtomicCounter()
        let drops = Recorder<UInt>()
        dispatcher.invalidate()

        for _ in 0..<5 {
            dispatcher.dispatch(
                { bodies.increment() },
                orDrop: { drops.append(stressCurrentThreadID()) })
            dispatcher.dispatch { bodies.increment() }
        }

        // Already invalidated: every drop was reported before `dispatch` returned.
        #expect(drops.all == Array(repeating: stressCurrentThreadID(), count: 5))
        queue.drain()
        #expect(bodies.value == 0)
        #expect(drops.all.count == 5)
    }

    @Test func workQueuedBeforeInvalidateIsDroppedOnTheQueue() {
        // Given work sent while the queue cannot run it yet
        let queue = TestQueues.serial("invalidatable.queued")
        let dispatcher = InvalidatableQueue(queue: queue)
        let bodies = AtomicCounter()
        let drops = Recorder<Bool>()
        queue.suspend()
        for _ in 0..<5 {
            dispatcher.dispatch({ bodies.increment() }, orDrop: { drops.append(TestQueues.isOn(queue)) })
            dispatcher.dispatch { bodies.increment() }
        }

        // When the dispatcher is invalidated before the queue gets to it
        dispatcher.invalidate()
        #expect(drops.all.isEmpty)
        queue.resume()
        queue.drain()

        // Then nothing ran, and each drop was reported once, on the queue
        #expect(bodies.value == 0)
        #expect(drops.all == Array(repeating: true, count: 5))
    }

    @Test func aBodyThatHasStartedFinishesAndIsNotAlsoDropped() {
        let queue = TestQueues.serial("invalidatable.started")
        let dispatcher = InvalidatableQueue(queue: queue)
        let events = Recorder<String>()

        dispatcher.dispatch(
            {
                events.append("first started")
                dispatcher.invalidate()
                events.append("first finished")
            },
            orDrop: { events.append("first dropped") })
        dispatcher.dispatch({ events.append("second ran") }, orDrop: { events.append("second dropped") })
        queue.drain()

        #expect(events.all == ["first started", "first finished", "second dropped"])
    }
}
