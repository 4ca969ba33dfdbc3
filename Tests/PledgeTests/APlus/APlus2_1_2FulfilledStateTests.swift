import Dispatch
import Pledge
import Testing

/// Promises/A+ 2.1.2: once fulfilled, a promise never moves to another state, and its value
/// never changes.
///
/// In Pledge, "moving" would be a later `fulfill`, `reject` or `resolve` on the same resolver,
/// or the resolver body throwing after it fulfilled. All of them must be ignored.
@Suite("2.1.2 — a fulfilled promise stays fulfilled with the same value")
struct APlus2_1_2FulfilledStateTests {
    @Test("rejecting after fulfilling is ignored (2.1.2.1)")
    func rejectingAfterFulfillingIsIgnored() {
        let (promise, resolver) = Promise<Int>.pending()

        resolver.fulfill(1)
        resolver.reject(APlusReason("too late"))

        #expect(promise.isFulfilled)
        #expect(!promise.isRejected)
        #expect(promise.error == nil)
        #expect(promise.value == 1)
    }

    @Test("fulfilling again keeps the first value (2.1.2.2)")
    func fulfillingAgainKeepsTheFirstValue() {
        let (promise, resolver) = Promise<Int>.pending()

        resolver.fulfill(1)
        resolver.fulfill(2)
        resolver.resolve(Result<Int, APlusReason>.success(3))
        resolver.resolve(4, nil)

        #expect(promise.value == 1)
    }

    @Test("every way of resolving is ignored once fulfilled")
    func everyWayOfResolvingIsIgnoredOnceFulfilled() {
        let token = APlusToken("first")
        let (promise, resolver) = Promise<APlusToken>.pending()
        resolver.fulfill(token)

        resolver.reject(APlusReason("reject"))
        resolver.resolve(Result<APlusToken, APlusReason>.failure(APlusReason("resolve(Result)")))
        resolver.resolve(nil, APlusReason("resolve(value, error)"))
        resolver.resolve(APlusReason("resolve(error, value)"), nil)
        resolver.resolve(nil as APlusToken?, nil as Error?)
        resolver.fulfill(APlusToken("second"))

        #expect(promise.value === token)
    }

    @Test("a resolver body that throws after fulfilling leaves the promise fulfilled")
    func throwingAfterFulfillingIsIgnored() {
        let promise = Promise<Int> { seal in
            seal.fulfill(1)
            throw APlusReason("thrown after fulfil")
        }

        #expect(promise.value == 1)
        #expect(promise.error == nil)
    }

    @Test("a later rejection from another queue is ignored, and handlers see the first value")
    func laterRejectionFromAnotherQueueIsIgnored() {
        let token = APlusToken("value")
        let (promise, resolver) = Promise<APlusToken>.pending()
        let seen = APlusLog<APlusToken>()
        _ = promise.done(on: nil) { seen.append($0) }

        resolver.fulfill(token)
        let other = APlusQueue()
        let rejected = DispatchSemaphore(value: 0)
        other.queue.async {
            resolver.reject(APlusReason("late"))
            resolver.fulfill(APlusToken("late"))
            rejected.signal()
        }
        #expect(aplusWait(rejected))
        _ = promise.done(on: nil) { seen.append($0) }

        #expect(promise.value === token)
        #expect(seen.all.count == 2)
        #expect(seen.all.allSatisfy { $0 === token })
    }

    @Test("reading the state over and over gives the same answer")
    func readingTheStateIsStable() {
        let (promise, resolver) = Promise<Int>.pending()
        resolver.fulfill(42)
        let born = Promise.value(42)

        for _ in 0..<1_000 {
            #expect(promise.value == 42)
            #expect(born.value == 42)
            #expect(!promise.isPending && !born.isPending)
        }
    }

    @Test("a guarantee keeps the first value it was given")
    func aGuaranteeKeepsItsFirstValue() {
        let (guarantee, resolve) = Guarantee<Int>.pending()

        resolve(1)
        resolve(2)

        #expect(guarantee.value == 1)
        #expect(guarantee.isFulfilled)
    }
}
