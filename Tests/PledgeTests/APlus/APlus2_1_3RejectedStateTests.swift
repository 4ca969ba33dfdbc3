import Dispatch
import Pledge
import Testing

/// Promises/A+ 2.1.3: once rejected, a promise never moves to another state, and its reason
/// never changes.
@Suite("2.1.3 — a rejected promise stays rejected with the same reason")
struct APlus2_1_3RejectedStateTests {
    @Test("fulfilling after rejecting is ignored (2.1.3.1)")
    func fulfillingAfterRejectingIsIgnored() {
        let reason = APlusReason("first")
        let (promise, resolver) = Promise<Int>.pending()

        resolver.reject(reason)
        resolver.fulfill(1)

        #expect(promise.isRejected)
        #expect(!promise.isFulfilled)
        #expect(promise.value == nil)
        #expect(aplusIsSame(promise.error, as: reason))
    }

    @Test("rejecting again keeps the first reason (2.1.3.2)")
    func rejectingAgainKeepsTheFirstReason() {
        let reason = APlusReason("first")
        let (promise, resolver) = Promise<Int>.pending()

        resolver.reject(reason)
        resolver.reject(APlusReason("second"))
        resolver.resolve(Result<Int, APlusReason>.failure(APlusReason("third")))
        resolver.resolve(nil as Int?, nil as Error?)

        #expect(aplusIsSame(promise.error, as: reason))
    }

    @Test("a resolver body that throws keeps the thrown reason; a resolver used later is ignored")
    func throwingBodyRejectsForGood() {
        let reason = APlusReason("thrown")
        let escaped = APlusSlot<Resolver<Int>>()
        let promise = Promise<Int> { seal in
            escaped.value = seal
            throw reason
        }

        escaped.value?.fulfill(1)
        escaped.value?.reject(APlusReason("later"))

        #expect(aplusIsSame(promise.error, as: reason))
    }

    @Test("a resolver body that rejects, then throws, keeps the first reason")
    func rejectingThenThrowingKeepsTheFirstReason() {
        let reason = APlusReason("rejected")
        let promise = Promise<Int> { seal in
            seal.reject(reason)
            throw APlusReason("thrown afterwards")
        }

        #expect(aplusIsSame(promise.error, as: reason))
    }

    @Test("a later fulfilment from another queue is ignored, and handlers see the first reason")
    func laterFulfilmentFromAnotherQueueIsIgnored() {
        let reason = APlusReason("first")
        let (promise, resolver) = Promise<Int>.pending()
        let seen = APlusLog<Bool>()
        promise.catch(on: nil, policy: .allErrors) { seen.append(aplusIsSame($0, as: reason)) }

        resolver.reject(reason)
        let other = APlusQueue()
        let fulfilled = DispatchSemaphore(value: 0)
        other.queue.async {
            resolver.fulfill(1)
            resolver.reject(APlusReason("late"))
            fulfilled.signal()
        }
        #expect(aplusWait(fulfilled))
        promise.catch(on: nil, policy: .allErrors) { seen.append(aplusIsSame($0, as: reason)) }

        #expect(aplusIsSame(promise.error, as: reason))
        #expect(seen.all == [true, true])
    }

    @Test("a promise made rejected reads the same reason every time")
    func aPromiseMadeRejectedIsStable() {
        let reason = APlusReason("born rejected")
        let promise = Promise<Int>(error: reason)

        for _ in 0..<1_000 {
            #expect(aplusIsSame(promise.error, as: reason))
            #expect(promise.isRejected && !promise.isPending)
        }
    }
}
