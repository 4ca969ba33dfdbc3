import Dispatch
import Pledge
import Testing

/// Promises/A+ 2.2.2: `onFulfilled` runs after the promise is fulfilled, with its value as the
/// argument (2.2.2.1), never before (2.2.2.2), and at most once (2.2.2.3).
///
/// Pledge's `onFulfilled` is the closure of `map`, `compactMap`, `then`, `done`, `get` and
/// `tap`; each case runs inline (`on: nil`) and on a serial queue.
@Suite("2.2.2 — onFulfilled runs once, after fulfilment, with the value")
struct APlus2_2_2OnFulfilledTests {
    @Test(
        "it is not called before fulfilment, then called with the value (2.2.2.1, 2.2.2.2)",
        arguments: APlusOnFulfilled.allCases, APlusPlacement.allCases)
    func calledWithTheValueOnlyAfterFulfilment(handler: APlusOnFulfilled, placement: APlusPlacement) {
        let queue = placement.makeQueue()
        let (promise, resolver) = Promise<APlusToken>.pending()
        let seen = APlusLog<APlusToken>()
        let called = DispatchSemaphore(value: 0)
        handler.attach(to: promise, on: queue?.queue) {
            seen.append($0)
            called.signal()
        }

        // Given time to misbehave, the handler still has not run.
        queue?.drain()
        #expect(seen.all.isEmpty)

        let token = APlusToken("value")
        resolver.fulfill(token)

        #expect(aplusWait(called))
        #expect(seen.all.count == 1)
        #expect(seen.all.first === token)
    }

    @Test(
        "it is called at most once, whatever else the resolver is asked to do (2.2.2.3)",
        arguments: APlusOnFulfilled.allCases, APlusPlacement.allCases)
    func calledAtMostOnce(handler: APlusOnFulfilled, placement: APlusPlacement) {
        let queue = placement.makeQueue()
        let (promise, resolver) = Promise<Int>.pending()
        let seen = APlusLog<Int>()
        handler.attach(to: promise, on: queue?.queue) { seen.append($0) }

        resolver.fulfill(1)
        resolver.fulfill(2)
        resolver.reject(APlusReason("after"))
        queue?.drain()

        #expect(seen.all == [1])
    }

    @Test(
        "attached after fulfilment, it is called once with the value",
        arguments: APlusOnFulfilled.allCases, APlusPlacement.allCases)
    func attachedAfterFulfilment(handler: APlusOnFulfilled, placement: APlusPlacement) {
        let queue = placement.makeQueue()
        let (pending, resolver) = Promise<Int>.pending()
        resolver.fulfill(7)
        let seen = APlusLog<Int>()

        handler.attach(to: pending, on: queue?.queue) { seen.append($0) }
        handler.attach(to: Promise.value(8), on: queue?.queue) { seen.append($0) }
        queue?.drain()

        #expect(seen.all == [7, 8])
    }

    @Test(
        "a rejected promise never calls it",
        arguments: APlusOnFulfilled.allCases, APlusPlacement.allCases)
    func neverCalledOnRejection(handler: APlusOnFulfilled, placement: APlusPlacement) {
        let queue = placement.makeQueue()
        let (promise, resolver) = Promise<Int>.pending()
        let seen = APlusLog<Int>()
        let ended = DispatchSemaphore(value: 0)
        handler.attach(to: promise, on: queue?.queue) { seen.append($0) }.pipe { _ in ended.signal() }

        resolver.reject(APlusReason("no"))
        handler.attach(to: promise, on: queue?.queue) { seen.append($0) }
        queue?.drain()

        #expect(aplusWait(ended))
        #expect(seen.all.isEmpty)
    }

    @Test("a guarantee's handlers follow the same rules")
    func guaranteeHandlers() {
        let queue = APlusQueue()
        let (guarantee, resolve) = Guarantee<Int>.pending()
        let seen = APlusLog<String>()
        guarantee.done(on: queue.queue) { seen.append("done \($0)") }
        _ = guarantee.map(on: nil) { seen.append("map \($0)") }
        _ = guarantee.get(on: queue.queue) { seen.append("get \($0)") }
        queue.drain()
        #expect(seen.all.isEmpty)

        resolve(3)
        resolve(4)
        queue.drain()

        #expect(seen.all.sorted() == ["done 3", "get 3", "map 3"])
    }
}
