import Dispatch
import Pledge
import Testing

/// Promises/A+ 2.2.3: `onRejected` runs after the promise is rejected, with its reason as the
/// argument (2.2.3.1), never before (2.2.3.2), and at most once (2.2.3.3).
///
/// Pledge's `onRejected` is the closure of `catch`, `recover` (to a promise or to a guarantee)
/// and `tap`; each case runs inline (`on: nil`) and on a serial queue.
@Suite("2.2.3 — onRejected runs once, after rejection, with the reason")
struct APlus2_2_3OnRejectedTests {
    @Test(
        "it is not called before rejection, then called with the reason (2.2.3.1, 2.2.3.2)",
        arguments: APlusOnRejected.allCases, APlusPlacement.allCases)
    func calledWithTheReasonOnlyAfterRejection(handler: APlusOnRejected, placement: APlusPlacement) {
        let queue = placement.makeQueue()
        let (promise, resolver) = Promise<Int>.pending()
        let seen = APlusLog<Bool>()
        let reason = APlusReason("reason")
        let called = DispatchSemaphore(value: 0)
        handler.attach(to: promise, on: queue?.queue) {
            seen.append(aplusIsSame($0, as: reason))
            called.signal()
        }

        queue?.drain()
        #expect(seen.all.isEmpty)

        resolver.reject(reason)

        #expect(aplusWait(called))
        #expect(seen.all == [true])
    }

    @Test(
        "it is called at most once, whatever else the resolver is asked to do (2.2.3.3)",
        arguments: APlusOnRejected.allCases, APlusPlacement.allCases)
    func calledAtMostOnce(handler: APlusOnRejected, placement: APlusPlacement) {
        let queue = placement.makeQueue()
        let (promise, resolver) = Promise<Int>.pending()
        let seen = APlusLog<String>()
        handler.attach(to: promise, on: queue?.queue) { seen.append(($0 as? APlusReason)?.label ?? "?") }

        resolver.reject(APlusReason("first"))
        resolver.reject(APlusReason("second"))
        resolver.fulfill(1)
        queue?.drain()

        #expect(seen.all == ["first"])
    }

    @Test(
        "attached after rejection, it is called once with the reason",
        arguments: APlusOnRejected.allCases, APlusPlacement.allCases)
    func attachedAfterRejection(handler: APlusOnRejected, placement: APlusPlacement) {
        let queue = placement.makeQueue()
        let (pending, resolver) = Promise<Int>.pending()
        resolver.reject(APlusReason("settled"))
        let seen = APlusLog<String>()

        handler.attach(to: pending, on: queue?.queue) { seen.append(($0 as? APlusReason)?.label ?? "?") }
        handler.attach(to: Promise(error: APlusReason("born")), on: queue?.queue) {
            seen.append(($0 as? APlusReason)?.label ?? "?")
        }
        queue?.drain()

        #expect(seen.all == ["settled", "born"])
    }

    @Test(
        "a fulfilled promise never calls it",
        arguments: APlusOnRejected.allCases, APlusPlacement.allCases)
    func neverCalledOnFulfilment(handler: APlusOnRejected, placement: APlusPlacement) {
        let queue = placement.makeQueue()
        let (promise, resolver) = Promise<Int>.pending()
        let seen = APlusLog<String>()
        handler.attach(to: promise, on: queue?.queue) { seen.append("\($0)") }

        resolver.fulfill(1)
        handler.attach(to: promise, on: queue?.queue) { seen.append("\($0)") }
        handler.attach(to: Promise.value(2), on: queue?.queue) { seen.append("\($0)") }
        queue?.drain()

        #expect(seen.all.isEmpty)
    }
}
