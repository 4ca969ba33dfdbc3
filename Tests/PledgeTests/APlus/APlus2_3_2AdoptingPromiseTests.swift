import Dispatch
import Pledge
import Testing

/// Promises/A+ 2.3.2: when a handler returns a promise, `promise2` adopts its state: it stays
/// pending while that promise is pending (2.3.2.1), then is fulfilled with the same value
/// (2.3.2.2) or rejected with the same reason (2.3.2.3).
///
/// In Pledge the handler is `then` (or `recover`), and "a promise" is any thenable: a `Promise`
/// or a `Guarantee`.
@Suite("2.3.2 — a returned promise's state is adopted")
struct APlus2_3_2AdoptingPromiseTests {
    @Test(
        "promise2 stays pending while the returned promise is, then takes its value (2.3.2.1, 2.3.2.2)",
        arguments: APlusPlacement.allCases)
    func adoptsALaterFulfilment(placement: APlusPlacement) throws {
        let queue = placement.makeQueue()
        let (inner, innerResolver) = Promise<APlusToken>.pending()
        let handlerRan = DispatchSemaphore(value: 0)
        let result = Promise.value(1).then(on: queue?.queue) { _ -> Promise<APlusToken> in
            handlerRan.signal()
            return inner
        }

        #expect(aplusWait(handlerRan))
        queue?.drain()
        #expect(result.isPending)

        let token = APlusToken("adopted")
        innerResolver.fulfill(token)

        #expect(try aplusSettle(result)?.get() === token)
    }

    @Test(
        "promise2 stays pending while the returned promise is, then takes its reason (2.3.2.1, 2.3.2.3)",
        arguments: APlusPlacement.allCases)
    func adoptsALaterRejection(placement: APlusPlacement) {
        let queue = placement.makeQueue()
        let (inner, innerResolver) = Promise<Int>.pending()
        let handlerRan = DispatchSemaphore(value: 0)
        let result = Promise.value(1).then(on: queue?.queue) { _ -> Promise<Int> in
            handlerRan.signal()
            return inner
        }

        #expect(aplusWait(handlerRan))
        queue?.drain()
        #expect(result.isPending)

        let reason = APlusReason("adopted")
        innerResolver.reject(reason)

        #expect(throws: APlusReason.self) { try aplusSettle(result)?.get() }
        #expect(aplusIsSame(result.error, as: reason))
    }

    @Test("a returned promise that is already settled is adopted at once (2.3.2.2, 2.3.2.3)")
    func adoptsAnAlreadySettledPromise() {
        let token = APlusToken("settled")
        let reason = APlusReason("settled")

        let fulfilled = Promise.value(1).then(on: nil) { _ in Promise.value(token) }
        let rejected = Promise.value(1).then(on: nil) { _ in Promise<Int>(error: reason) }

        #expect(fulfilled.value === token)
        #expect(aplusIsSame(rejected.error, as: reason))
    }

    @Test("the returned promise may be resolved from another queue")
    func adoptsAResolutionFromAnotherQueue() throws {
        let worker = APlusQueue()
        let (source, resolver) = Promise<Int>.pending()
        let result = source.then(on: nil) { value -> Promise<Int> in
            let (inner, innerResolver) = Promise<Int>.pending()
            worker.queue.async { innerResolver.fulfill(value * 2) }
            return inner
        }

        resolver.fulfill(21)

        #expect(try aplusSettle(result)?.get() == 42)
    }

    @Test("recover adopts the promise its handler returns")
    func recoverAdopts() throws {
        let (inner, innerResolver) = Promise<Int>.pending()
        let result = Promise<Int>(error: APlusReason("no")).recover(on: nil, policy: .allErrors) { _ in inner }

        #expect(result.isPending)
        innerResolver.fulfill(5)

        #expect(try aplusSettle(result)?.get() == 5)
    }

    @Test("a returned guarantee is adopted too, by then on a promise and on a guarantee")
    func guaranteesAreAdopted() throws {
        let (inner, resolve) = Guarantee<Int>.pending()
        let fromPromise = Promise.value(1).then(on: nil) { _ in inner }
        let fromGuarantee = Guarantee.value(1).then(on: nil) { _ in inner }

        #expect(fromPromise.isPending)
        #expect(fromGuarantee.isPending)
        resolve(9)

        #expect(try aplusSettle(fromPromise)?.get() == 9)
        #expect(try aplusSettle(fromGuarantee)?.get() == 9)
    }

    @Test("firstly adopts the promise its body returns")
    func firstlyAdopts() throws {
        let (inner, innerResolver) = Promise<Int>.pending()
        let result = firstly { inner }

        #expect(result.isPending)
        innerResolver.fulfill(3)

        #expect(try aplusSettle(result)?.get() == 3)
    }
}
