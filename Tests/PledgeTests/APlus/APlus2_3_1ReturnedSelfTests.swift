import Dispatch
import Pledge
import Testing

/// Promises/A+ 2.3.1: if a handler returns the very promise its `then` produced, that promise
/// could only ever wait for itself, so it is rejected instead. Pledge rejects it with
/// ``PMKError/returnedSelf``, for `then` and for `recover`.
@Suite("2.3.1 — returning the promise itself rejects with PMKError.returnedSelf")
struct APlus2_3_1ReturnedSelfTests {
    @Test("then whose handler returns then's own promise", arguments: APlusPlacement.allCases)
    func thenReturningItself(placement: APlusPlacement) {
        let queue = placement.makeQueue()?.queue
        let (source, resolver) = Promise<Int>.pending()
        let itself = APlusSlot<Promise<Int>>()
        let result = source.then(on: queue) { _ -> Promise<Int> in
            guard let promise = itself.value else { throw APlusReason("slot empty") }
            return promise
        }
        itself.value = result

        resolver.fulfill(1)

        #expect(throws: PMKError.returnedSelf) { try aplusSettle(result)?.get() }
    }

    @Test("then on an already fulfilled promise, dispatched to a queue")
    func thenOnAFulfilledPromiseReturningItself() {
        // The handler is dispatched, so it runs after `result` is stored.
        let queue = APlusQueue()
        let itself = APlusSlot<Promise<Int>>()
        let hold = DispatchSemaphore(value: 0)
        queue.queue.async { _ = hold.wait(timeout: .now() + aplusTimeout) }
        let result = Promise.value(1).then(on: queue.queue) { _ -> Promise<Int> in
            guard let promise = itself.value else { throw APlusReason("slot empty") }
            return promise
        }
        itself.value = result
        hold.signal()

        #expect(throws: PMKError.returnedSelf) { try aplusSettle(result)?.get() }
    }

    @Test("recover whose handler returns recover's own promise", arguments: APlusPlacement.allCases)
    func recoverReturningItself(placement: APlusPlacement) {
        let queue = placement.makeQueue()?.queue
        let (source, resolver) = Promise<Int>.pending()
        let itself = APlusSlot<Promise<Int>>()
        let result = source.recover(on: queue, policy: .allErrors) { _ -> Promise<Int> in
            guard let promise = itself.value else { throw APlusReason("slot empty") }
            return promise
        }
        itself.value = result

        resolver.reject(APlusReason("to be recovered"))

        #expect(throws: PMKError.returnedSelf) { try aplusSettle(result)?.get() }
    }

    @Test("the rejection reaches the rest of the chain like any other error")
    func returnedSelfPropagates() {
        let (source, resolver) = Promise<Int>.pending()
        let itself = APlusSlot<Promise<Int>>()
        let result = source.then(on: nil) { _ -> Promise<Int> in
            guard let promise = itself.value else { throw APlusReason("slot empty") }
            return promise
        }
        itself.value = result
        let caught = APlusLog<PMKError?>()
        result.map(on: nil) { $0 + 1 }.catch(on: nil, policy: .allErrors) { caught.append($0 as? PMKError) }

        resolver.fulfill(1)

        #expect(caught.all == [.returnedSelf])
    }
}
