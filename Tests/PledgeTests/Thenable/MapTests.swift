import Dispatch
import Pledge
import Testing

@Suite struct MapTests {
    @Test func mapFulfilsWithWhatItsTransformReturns() {
        let mapped = Promise.value(20).map(on: nil) { $0 * 2 + 2 }

        #expect(mapped.value == 42)
    }

    @Test func mapCanChangeTheValueType() {
        let mapped = Promise.value(7).map(on: nil) { "\($0)" }

        #expect(mapped.value == "7")
    }

    @Test func mapRejectsWithTheErrorItsTransformThrows() {
        let mapped = Promise.value(1).map(on: nil) { _ -> Int in throw TestError.boom }

        #expect(mapped.error as? TestError == .boom)
    }

    @Test func aRejectionSkipsMapWithoutDispatching() async {
        let queue = TestQueues.serial("map.suspended")
        queue.suspend()

        await confirmation(expectedCount: 0) { transformRan in
            let mapped = Promise<Int>(error: TestError.boom).map(on: queue) { value -> Int in
                transformRan()
                return value
            }
            #expect(mapped.error as? TestError == .boom)
            queue.resume()
            queue.drain()
        }
    }

    @Test func mapRunsItsTransformOnTheGivenQueue() {
        let queue = TestQueues.serial("map.target")

        let mapped = Promise.value(1).map(on: queue) { _ in TestQueues.isOn(queue) }

        #expect(mapped.settledValue() == true)
    }

    @Test func mapOnAQueueDispatchesEvenWhenAlreadyFulfilled() {
        let queue = TestQueues.serial("map.zalgo")
        queue.suspend()
        let ran = AtomicFlag()

        let mapped = Promise.value(1).map(on: queue) { value -> Int in
            ran.set()
            return value
        }

        // Suspended, the queue cannot have run the transform: only running it inline could have.
        #expect(!ran.isSet)
        #expect(mapped.isPending)
        queue.resume()
        #expect(mapped.settledValue() == 1)
        #expect(ran.isSet)
    }

    @Test func mapOnNilRunsInlineWhenAlreadyFulfilled() {
        let mapped = Promise.value(1).map(on: nil) { $0 + 1 }

        // No waiting: an inline transform has run before `map` returns.
        #expect(mapped.value == 2)
    }

    @Test func mapHandlersOnOnePromiseRunInTheOrderTheyWereAttached() {
        let (promise, resolver) = Promise<Int>.pending()
        let order = Recorder<Int>()

        let inline = (0..<10).map { index in promise.map(on: nil) { _ in order.append(index) } }
        resolver.fulfill(0)

        #expect(order.all == Array(0..<10))
        #expect(inline.allSatisfy { $0.isFulfilled })
    }

    @Test func mapHandlersOnOneSerialQueueRunInTheOrderTheyWereAttached() {
        let queue = TestQueues.serial("map.order")
        let (promise, resolver) = Promise<Int>.pending()
        let order = Recorder<Int>()

        let mapped = (0..<50).map { index in promise.map(on: queue) { _ in order.append(index) } }
        resolver.fulfill(0)

        #expect(mapped.last?.settledResult() != nil)
        queue.drain()
        #expect(order.all == Array(0..<50))
    }

    @Test func mapPassesItsFlagsToTheQueue() {
        // Given a concurrent queue busy with a block that has not finished,
        let queue = TestQueues.concurrent("map.barrier")
        let release = DispatchSemaphore(value: 0)
        let earlierFinished = AtomicFlag()
        queue.async {
            release.wait()
            earlierFinished.set()
        }

        // when a handler is attached with the barrier flag,
        let mapped = Promise.value(1).map(on: queue, flags: .barrier) { _ in earlierFinished.isSet }
        release.signal()

        // then it waits for the earlier block, as only a barrier does on a concurrent queue.
        #expect(mapped.settledValue() == true)
    }

    @Test func compactMapFulfilsWithANonNilResult() {
        let mapped = Promise.value("42").compactMap(on: nil) { Int($0) }

        #expect(mapped.value == 42)
    }

    @Test func compactMapRejectsANilResultWithAnErrorNamingTheValueAndTheTypeWanted() throws {
        let mapped = Promise.value("forty-two").compactMap(on: nil) { Int($0) }

        let error = try #require(mapped.error as? PMKError)
        #expect(error == .compactMap("forty-two", "Int"))
        #expect(error.description == "Could not `compactMap<Int>`: forty-two")
    }

    @Test func compactMapRejectsWithTheErrorItsTransformThrows() {
        let mapped = Promise.value(1).compactMap(on: nil) { _ -> Int? in throw TestError.boom }

        #expect(mapped.error as? TestError == .boom)
    }

    @Test func compactMapRunsOnTheGivenQueueAndDispatchesEvenWhenAlreadyFulfilled() {
        let queue = TestQueues.serial("compactMap.target")
        queue.suspend()

        let mapped = Promise.value(1).compactMap(on: queue) { _ in TestQueues.isOn(queue) }

        #expect(mapped.isPending)
        queue.resume()
        #expect(mapped.settledValue() == true)
    }

    @Test func aRejectionSkipsCompactMapWithoutDispatching() {
        let queue = TestQueues.serial("compactMap.suspended")
        queue.suspend()
        defer { queue.resume() }

        let mapped = Promise<Int>(error: TestError.boom).compactMap(on: queue) { $0 }

        #expect(mapped.error as? TestError == .boom)
    }
}
