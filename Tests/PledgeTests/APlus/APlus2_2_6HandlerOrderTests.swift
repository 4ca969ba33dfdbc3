import Dispatch
import Pledge
import Testing

/// Promises/A+ 2.2.6: `then` may be called many times on one promise, and when it settles, its
/// handlers run in the order of the calls that attached them: onFulfilled ones on fulfilment
/// (2.2.6.1), onRejected ones on rejection (2.2.6.2).
///
/// Covered here: handlers attached before resolution, after it, and while it is under way
/// (from inside an earlier handler, and from another thread while the resolving thread is still
/// running earlier handlers).
@Suite("2.2.6 — handlers run in attachment order")
struct APlus2_2_6HandlerOrderTests {
    @Test(
        "onFulfilled handlers attached before fulfilment run in order (2.2.6.1)",
        arguments: APlusOnFulfilled.allCases, APlusPlacement.allCases)
    func fulfilmentHandlersRunInOrder(handler: APlusOnFulfilled, placement: APlusPlacement) {
        let queue = placement.makeQueue()
        let (promise, resolver) = Promise<Int>.pending()
        let order = APlusLog<Int>()
        for index in 0..<8 {
            handler.attach(to: promise, on: queue?.queue) { _ in order.append(index) }
        }

        resolver.fulfill(1)
        queue?.drain()

        #expect(order.all == Array(0..<8))
    }

    @Test(
        "onRejected handlers attached before rejection run in order (2.2.6.2)",
        arguments: APlusOnRejected.allCases, APlusPlacement.allCases)
    func rejectionHandlersRunInOrder(handler: APlusOnRejected, placement: APlusPlacement) {
        let queue = placement.makeQueue()
        let (promise, resolver) = Promise<Int>.pending()
        let order = APlusLog<Int>()
        for index in 0..<8 {
            handler.attach(to: promise, on: queue?.queue) { _ in order.append(index) }
        }

        resolver.reject(APlusReason("no"))
        queue?.drain()

        #expect(order.all == Array(0..<8))
    }

    @Test("different operators share one order; handlers for the other outcome are skipped")
    func mixedOperatorsShareOneOrder() {
        let (fulfilled, fulfil) = Promise<Int>.pending()
        let (rejected, reject) = Promise<Int>.pending()
        let fulfilOrder = APlusLog<String>()
        let rejectOrder = APlusLog<String>()
        for (index, fulfilHandler) in APlusOnFulfilled.allCases.enumerated() {
            let rejectHandler = APlusOnRejected.allCases[index % APlusOnRejected.allCases.count]
            for promise in [fulfilled, rejected] {
                fulfilHandler.attach(to: promise, on: nil) { _ in
                    (promise === fulfilled ? fulfilOrder : rejectOrder).append("\(index) \(fulfilHandler)")
                }
                rejectHandler.attach(to: promise, on: nil) { _ in
                    (promise === fulfilled ? fulfilOrder : rejectOrder).append("\(index) \(rejectHandler)")
                }
            }
        }

        fulfil.fulfill(1)
        reject.reject(APlusReason("no"))

        let allFulfil = APlusOnFulfilled.allCases
        let allReject = APlusOnRejected.allCases
        #expect(fulfilOrder.all == allFulfil.enumerated().map { "\($0.offset) \($0.element)" })
        #expect(
            rejectOrder.all
                == allFulfil.indices.map { "\($0) \(allReject[$0 % allReject.count])" })
    }

    @Test("handlers attached after settlement run in order on their queue", arguments: [true, false])
    func handlersAttachedAfterSettlementRunInOrder(fulfil: Bool) {
        let queue = APlusQueue()
        let (promise, resolver) = Promise<Int>.pending()
        if fulfil { resolver.fulfill(1) } else { resolver.reject(APlusReason("no")) }
        let order = APlusLog<Int>()

        for index in 0..<10 {
            if index.isMultiple(of: 2) {
                _ = promise.tap(on: queue.queue) { _ in order.append(index) }
            } else {
                _ = promise.ensure(on: queue.queue) { order.append(index) }
            }
        }
        queue.drain()

        #expect(order.all == Array(0..<10))
    }

    @Test("handlers attached from inside a handler run after the ones already waiting")
    func handlersAttachedWhileFiringByPipeQueueUp() {
        let (promise, resolver) = Promise<Int>.pending()
        let order = APlusLog<String>()
        promise.pipe { _ in
            order.append("first")
            promise.pipe { _ in order.append("third") }
            promise.pipe { _ in order.append("fourth") }
        }
        promise.pipe { _ in order.append("second") }

        resolver.fulfill(1)

        #expect(order.all == ["first", "second", "third", "fourth"])
    }

    /// An `on: nil` operator on a resolved promise runs its closure at once, but only once the
    /// promise has started every earlier handler: while the resolving thread is still running
    /// them, `result` is already set, and the shortcut must not be taken (it once was).
    @Test("on: nil handlers attached from inside a handler do not overtake the ones already waiting")
    func inlineHandlersAttachedWhileFiringDoNotOvertake() {
        let (promise, resolver) = Promise<Int>.pending()
        let order = APlusLog<String>()
        promise.pipe { _ in
            order.append("first")
            _ = promise.done(on: nil) { _ in order.append("third") }
            _ = promise.map(on: nil) { _ in order.append("fourth") }
        }
        promise.pipe { _ in order.append("second") }

        resolver.fulfill(1)

        #expect(order.all == ["first", "second", "third", "fourth"])
    }

    /// The cascades that handlers start (the next links of their chains) also follow attachment
    /// order, when a handler attached while the promise is firing starts one and an earlier
    /// handler's cascade is still waiting its turn. It once ran before that earlier cascade.
    @Test("cascades of handlers attached while firing run after the earlier handlers' cascades")
    func cascadesOfHandlersAttachedWhileFiringKeepTheirOrder() {
        let (promise, resolver) = Promise<Int>.pending()
        let order = APlusLog<String>()
        _ = promise.map(on: nil) { value -> Int in
            _ = promise.map(on: nil) { $0 }.done(on: nil) { _ in order.append("third") }
            return value
        }.done(on: nil) { _ in order.append("first") }
        _ = promise.map(on: nil) { $0 }.done(on: nil) { _ in order.append("second") }

        resolver.fulfill(1)

        #expect(order.all == ["first", "second", "third"])
    }

    /// The same, seen from a second thread: if the `map(on: nil)` handler took the shortcut while
    /// the `pipe` one was queued, that thread's own two handlers would run in the wrong order.
    @Test("a thread attaching while another thread resolves sees its handlers run in its order")
    func handlersAttachedFromAnotherThreadWhileFiringKeepTheirOrder() {
        // Given a promise being resolved on another queue, whose first handler is still running
        let (promise, resolver) = Promise<Int>.pending()
        let order = APlusLog<String>()
        let firstIsRunning = DispatchSemaphore(value: 0)
        let mayFinish = DispatchSemaphore(value: 0)
        let resolved = DispatchSemaphore(value: 0)
        promise.pipe { _ in
            order.append("first")
            firstIsRunning.signal()
            _ = mayFinish.wait(timeout: .now() + aplusTimeout)
        }
        let resolving = APlusQueue()
        resolving.queue.async {
            resolver.fulfill(1)
            resolved.signal()
        }
        #expect(aplusWait(firstIsRunning))

        // When this thread attaches two more handlers
        promise.pipe { _ in order.append("second") }
        _ = promise.map(on: nil) { _ in order.append("third") }
        mayFinish.signal()

        // Then they run after the first, in the order they were attached
        #expect(aplusWait(resolved))
        #expect(order.all == ["first", "second", "third"])
    }

    @Test("a guarantee's handlers run in attachment order")
    func guaranteeHandlersRunInOrder() {
        let queue = APlusQueue()
        let (guarantee, resolve) = Guarantee<Int>.pending()
        let order = APlusLog<Int>()
        for index in 0..<9 {
            switch index % 3 {
            case 0: guarantee.done(on: queue.queue) { _ in order.append(index) }
            case 1: _ = guarantee.map(on: queue.queue) { _ in order.append(index) }
            default: _ = guarantee.get(on: queue.queue) { _ in order.append(index) }
            }
        }

        resolve(1)
        queue.drain()

        #expect(order.all == Array(0..<9))
    }
}
