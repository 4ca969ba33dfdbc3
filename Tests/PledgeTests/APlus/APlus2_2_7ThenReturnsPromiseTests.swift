import Dispatch
import Pledge
import Testing

/// Promises/A+ 2.2.7: `then` returns a new promise, `promise2`, whose fate follows the handler:
/// a returned value fulfils it (2.2.7.1), a thrown error rejects it (2.2.7.2), and when the
/// handler for the outcome is missing the outcome passes through unchanged (2.2.7.3, 2.2.7.4).
///
/// In Pledge "no onRejected" is `map`, `then`, `done`, …, which skip rejections; "no
/// onFulfilled" is `recover` and `catch`, which skip fulfilments.
@Suite("2.2.7 — then returns a new promise")
struct APlus2_2_7ThenReturnsPromiseTests {
    @Test("every operator returns a promise other than the one it was called on")
    func operatorsReturnNewPromises() {
        let (pending, resolver) = Promise<Int>.pending()
        defer { resolver.fulfill(0) }
        for promise in [pending, Promise.value(1), Promise(error: APlusReason("no"))] {
            let results: [ObjectIdentifier] = [
                ObjectIdentifier(promise.map(on: nil) { $0 }),
                ObjectIdentifier(promise.then(on: nil) { Promise.value($0) }),
                ObjectIdentifier(promise.get(on: nil) { _ in }),
                ObjectIdentifier(promise.tap(on: nil) { _ in }),
                ObjectIdentifier(promise.recover(on: nil, policy: .allErrors) { _ in Promise.value(0) }),
                ObjectIdentifier(promise.ensure(on: nil) {}),
            ]
            #expect(!results.contains(ObjectIdentifier(promise)))
        }
    }

    @Test("a value returned by onFulfilled or onRejected fulfils promise2 (2.2.7.1)")
    func returnedValuesFulfilPromise2() throws {
        let mapped = Promise.value(2).map(on: nil) { $0 * 10 }
        let recovered = Promise<Int>(error: APlusReason("no")).recover(on: nil, policy: .allErrors) { _ in
            Promise.value(30)
        }
        let viaQueue = Promise.value(4).map(on: APlusQueue().queue) { $0 * 10 }

        #expect(try aplusSettle(mapped)?.get() == 20)
        #expect(try aplusSettle(recovered)?.get() == 30)
        #expect(try aplusSettle(viaQueue)?.get() == 40)
    }

    @Test(
        "an error thrown by onFulfilled rejects promise2 with that error (2.2.7.2)",
        arguments: APlusPlacement.allCases)
    func throwingOnFulfilledRejectsPromise2(placement: APlusPlacement) {
        let queue = placement.makeQueue()?.queue
        let reason = APlusReason("thrown")
        let source = Promise.value(1)
        let results: [Promise<Void>] = [
            source.map(on: queue) { _ -> Int in throw reason }.asVoid(),
            source.compactMap(on: queue) { _ -> Int? in throw reason }.asVoid(),
            source.then(on: queue) { _ -> Promise<Int> in throw reason }.asVoid(),
            source.done(on: queue) { _ in throw reason },
            source.get(on: queue) { _ in throw reason }.asVoid(),
        ]

        for result in results {
            #expect(throws: APlusReason.self) { try aplusSettle(result)?.get() }
            #expect(aplusIsSame(result.error, as: reason))
        }
    }

    @Test(
        "an error thrown by onRejected rejects promise2 with that error (2.2.7.2)",
        arguments: APlusPlacement.allCases)
    func throwingOnRejectedRejectsPromise2(placement: APlusPlacement) {
        let queue = placement.makeQueue()?.queue
        let thrown = APlusReason("thrown by recover")
        let result = Promise<Int>(error: APlusReason("original")).recover(on: queue, policy: .allErrors) {
            _ -> Promise<Int> in throw thrown
        }

        #expect(throws: APlusReason.self) { try aplusSettle(result)?.get() }
        #expect(aplusIsSame(result.error, as: thrown))
    }

    @Test(
        "a rejection skips onFulfilled-only operators and reaches promise2 unchanged (2.2.7.4)",
        arguments: APlusOnFulfilled.allCases, APlusPlacement.allCases)
    func rejectionPassesThrough(handler: APlusOnFulfilled, placement: APlusPlacement) {
        let queue = placement.makeQueue()
        let reason = APlusReason("passes through")
        let (promise, resolver) = Promise<Int>.pending()
        let ran = APlusLog<Int>()
        let result = handler.attach(to: promise, on: queue?.queue) { ran.append($0) }

        resolver.reject(reason)

        #expect(throws: APlusReason.self) { try aplusSettle(result)?.get() }
        #expect(aplusIsSame(result.error, as: reason))
        queue?.drain()
        #expect(ran.all.isEmpty)
    }

    @Test("a rejection travels down a long chain, running nothing, to the first catch")
    func rejectionTravelsToTheFirstCatch() {
        let reason = APlusReason("deep")
        let ran = APlusLog<String>()
        let caught = DispatchSemaphore(value: 0)
        let queue = APlusQueue()
        Promise<Int>(error: reason)
            .map(on: queue.queue) { value in
                ran.append("map")
                return value
            }
            .then(on: nil) { value -> Promise<Int> in
                ran.append("then")
                return Promise.value(value)
            }
            .get(on: queue.queue) { _ in ran.append("get") }
            .done(on: nil) { _ in ran.append("done") }
            .catch(on: queue.queue, policy: .allErrors) { error in
                ran.append(aplusIsSame(error, as: reason) ? "catch: same reason" : "catch: other reason")
                caught.signal()
            }

        #expect(aplusWait(caught))
        #expect(ran.all == ["catch: same reason"])
    }

    @Test(
        "a fulfilment skips onRejected-only operators and reaches promise2 unchanged (2.2.7.3)",
        arguments: APlusPlacement.allCases)
    func fulfilmentPassesThrough(placement: APlusPlacement) throws {
        let queue = placement.makeQueue()?.queue
        let token = APlusToken("passes through")
        let ran = APlusLog<String>()
        let (promise, resolver) = Promise<APlusToken>.pending()
        let recovered = promise.recover(on: queue, policy: .allErrors) { _ -> Promise<APlusToken> in
            ran.append("recover")
            return Promise.value(APlusToken("recovered"))
        }
        let ended = DispatchSemaphore(value: 0)
        promise.catch(on: queue, policy: .allErrors) { _ in ran.append("catch") }.finally(on: nil) {
            ended.signal()
        }

        resolver.fulfill(token)

        #expect(try aplusSettle(recovered)?.get() === token)
        #expect(aplusWait(ended))
        #expect(ran.all.isEmpty)
    }
}
