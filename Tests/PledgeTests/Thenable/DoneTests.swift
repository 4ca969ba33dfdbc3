import Dispatch
import Pledge
import Testing

@Suite struct DoneTests {
    // MARK: done

    @Test func doneGivesTheValueToItsBodyAndFulfilsWithVoid() async {
        await confirmation { bodyRan in
            let finished = Promise.value(5).done(on: nil) { value in
                #expect(value == 5)
                bodyRan()
            }
            #expect(finished.isFulfilled)
        }
    }

    @Test func doneRejectsWithTheErrorItsBodyThrows() {
        let finished = Promise.value(1).done(on: nil) { _ in throw TestError.boom }

        #expect(finished.error as? TestError == .boom)
    }

    @Test func aRejectionSkipsDoneWithoutDispatching() async {
        let queue = TestQueues.serial("done.suspended")
        queue.suspend()

        await confirmation(expectedCount: 0) { bodyRan in
            let finished = Promise<Int>(error: TestError.boom).done(on: queue) { _ in bodyRan() }
            #expect(finished.error as? TestError == .boom)
            queue.resume()
            queue.drain()
        }
    }

    @Test func doneRunsItsBodyOnTheGivenQueue() {
        let queue = TestQueues.serial("done.target")
        let onQueue = Locked<Bool?>(nil)

        let finished = Promise.value(1).done(on: queue) { _ in onQueue.value = TestQueues.isOn(queue) }

        #expect(finished.settledResult() != nil)
        #expect(onQueue.value == true)
    }

    @Test func doneOnAQueueDispatchesEvenWhenAlreadyFulfilled() {
        let queue = TestQueues.serial("done.zalgo")
        let ran = AtomicFlag()
        let done = DispatchSemaphore(value: 0)

        let ranWhileAttaching = queue.sync {
            _ = Promise.value(1).done(on: queue) { _ in
                ran.set()
                done.signal()
            }
            return ran.isSet
        }

        #expect(!ranWhileAttaching)
        #expect(done.wait(timeout: .testTimeout) == .success)
    }

    // MARK: get

    @Test func getLooksAtTheValueAndPassesItOn() {
        let seen = Locked<Int?>(nil)

        let passed = Promise<Int>.value(3).get(on: nil) { seen.value = $0 }

        #expect(seen.value == 3)
        #expect(passed.value == 3)
    }

    @Test func getRejectsWithTheErrorItsBodyThrows() {
        let passed = Promise.value(3).get(on: nil) { _ in throw TestError.boom }

        #expect(passed.error as? TestError == .boom)
    }

    @Test func aRejectionSkipsGetWithoutDispatching() async {
        let queue = TestQueues.serial("get.suspended")
        queue.suspend()

        await confirmation(expectedCount: 0) { bodyRan in
            let passed = Promise<Int>(error: TestError.boom).get(on: queue) { _ in bodyRan() }
            #expect(passed.error as? TestError == .boom)
            queue.resume()
            queue.drain()
        }
    }

    @Test func getRunsItsBodyOnTheGivenQueueAndDispatchesEvenWhenAlreadyFulfilled() {
        let queue = TestQueues.serial("get.target")
        queue.suspend()
        let onQueue = Locked<Bool?>(nil)

        let passed = Promise.value(1).get(on: queue) { _ in onQueue.value = TestQueues.isOn(queue) }

        #expect(onQueue.value == nil)
        queue.resume()
        #expect(passed.settledValue() == 1)
        #expect(onQueue.value == true)
    }

    // MARK: tap

    @Test func tapSeesAFulfilmentAndPassesItOn() {
        let seen = Locked<Int?>(nil)

        let tapped = Promise.value(4).tap(on: nil) { seen.value = try? $0.get() }

        #expect(seen.value == 4)
        #expect(tapped.value == 4)
    }

    @Test func tapSeesARejectionAndPassesItOn() {
        let seen = Locked<TestError?>(nil)

        let tapped = Promise<Int>(error: TestError.boom).tap(on: nil) { result in
            if case .failure(let error) = result { seen.value = error as? TestError }
        }

        #expect(seen.value == .boom)
        #expect(tapped.error as? TestError == .boom)
    }

    @Test func tapRunsOnTheGivenQueueForARejectionToo() {
        let queue = TestQueues.serial("tap.target")
        queue.suspend()
        let onQueue = Locked<Bool?>(nil)

        let tapped = Promise<Int>(error: TestError.boom).tap(on: queue) { _ in
            onQueue.value = TestQueues.isOn(queue)
        }

        // Unlike `map`, `tap` acts on rejections, so it dispatches them.
        #expect(tapped.isPending)
        queue.resume()
        #expect(tapped.settledError() as? TestError == .boom)
        #expect(onQueue.value == true)
    }

    @Test func tapResolvesOnlyAfterItsBodyReturns() {
        let (promise, resolver) = Promise<Int>.pending()
        let stateInsideBody = Locked<Bool?>(nil)
        let tapped = Locked<Promise<Int>?>(nil)

        tapped.value = promise.tap(on: nil) { _ in stateInsideBody.value = tapped.value?.isPending }
        resolver.fulfill(1)

        #expect(stateInsideBody.value == true)
        #expect(tapped.value?.value == 1)
    }

    // MARK: asVoid

    @Test func asVoidFulfilsWithVoidWhenFulfilled() {
        let voided: Promise<Void> = Promise.value(9).asVoid()

        // `asVoid` dispatches nothing: an already-fulfilled promise gives a fulfilled one.
        #expect(voided.isFulfilled)
    }

    @Test func asVoidKeepsTheRejection() {
        let voided = Promise<Int>(error: TestError.boom).asVoid()

        #expect(voided.error as? TestError == .boom)
    }

    @Test func asVoidFollowsAPendingPromise() {
        let (promise, resolver) = Promise<Int>.pending()

        let voided = promise.asVoid()

        #expect(voided.isPending)
        resolver.fulfill(1)
        #expect(voided.isFulfilled)
    }
}
