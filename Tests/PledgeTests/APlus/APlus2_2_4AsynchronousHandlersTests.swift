import Dispatch
import Pledge
import Testing

/// Promises/A+ 2.2.4: handlers must not be called until the code that attached them (or that
/// resolved the promise) has returned.
///
/// JavaScript gets this from its job queue. Pledge's equivalent is the queue: a handler given a
/// queue is always dispatched to it, asynchronously, even when the promise is already resolved,
/// so it never runs inside the call that attached it or inside the `fulfill` that resolved it.
/// `on: nil` is Pledge's explicit opt-out, which runs the handler inline; the last test pins
/// that down so the difference stays deliberate.
@Suite("2.2.4 — a handler given a queue never runs before the attaching code returns")
struct APlus2_2_4AsynchronousHandlersTests {
    @Test(
        "attaching onFulfilled to a fulfilled promise dispatches it, even from its own queue",
        arguments: APlusOnFulfilled.allCases)
    func onFulfilledIsDispatchedWhenAlreadyFulfilled(handler: APlusOnFulfilled) {
        let queue = APlusQueue()
        let events = APlusLog<String>()
        let ran = DispatchSemaphore(value: 0)

        queue.queue.async {
            handler.attach(to: Promise.value(1), on: queue.queue) { _ in
                events.append(queue.isCurrent ? "handler on queue" : "handler elsewhere")
                ran.signal()
            }
            events.append("attacher returned")
        }

        #expect(aplusWait(ran))
        #expect(events.all == ["attacher returned", "handler on queue"])
    }

    @Test(
        "attaching onRejected to a rejected promise dispatches it, even from its own queue",
        arguments: APlusOnRejected.allCases)
    func onRejectedIsDispatchedWhenAlreadyRejected(handler: APlusOnRejected) {
        let queue = APlusQueue()
        let events = APlusLog<String>()
        let ran = DispatchSemaphore(value: 0)

        queue.queue.async {
            handler.attach(to: Promise(error: APlusReason("no")), on: queue.queue) { _ in
                events.append(queue.isCurrent ? "handler on queue" : "handler elsewhere")
                ran.signal()
            }
            events.append("attacher returned")
        }

        #expect(aplusWait(ran))
        #expect(events.all == ["attacher returned", "handler on queue"])
    }

    @Test("a handler attached from another thread is not run by the attaching call")
    func attachingFromAnotherThreadDoesNotRunTheHandler() {
        // Given a queue that is busy until we say so
        let queue = APlusQueue()
        let release = DispatchSemaphore(value: 0)
        queue.queue.async { _ = release.wait(timeout: .now() + aplusTimeout) }
        let events = APlusLog<String>()
        let ran = DispatchSemaphore(value: 0)

        // When a handler for it is attached to a fulfilled promise
        _ = Promise.value(1).done(on: queue.queue) { _ in
            events.append("handler")
            ran.signal()
        }
        events.append("attacher returned")

        // Then it waits its turn on the queue
        #expect(events.all == ["attacher returned"])
        release.signal()
        #expect(aplusWait(ran))
        #expect(events.all == ["attacher returned", "handler"])
    }

    @Test("resolving does not run queued handlers inside fulfill or reject")
    func resolvingDoesNotRunQueuedHandlersInline() {
        let queue = APlusQueue()
        let events = APlusLog<String>()
        let ran = DispatchSemaphore(value: 0)
        let (fulfilled, fulfil) = Promise<Int>.pending()
        let (rejected, reject) = Promise<Int>.pending()
        _ = fulfilled.done(on: queue.queue) { _ in
            events.append("onFulfilled")
            ran.signal()
        }
        rejected.catch(on: queue.queue, policy: .allErrors) { _ in
            events.append("onRejected")
            ran.signal()
        }

        queue.queue.async {
            fulfil.fulfill(1)
            events.append("fulfill returned")
            reject.reject(APlusReason("no"))
            events.append("reject returned")
        }

        #expect(aplusWait(ran, count: 2))
        #expect(events.all == ["fulfill returned", "reject returned", "onFulfilled", "onRejected"])
    }

    @Test("a guarantee's handlers given a queue are dispatched too")
    func guaranteeHandlersAreDispatched() {
        let queue = APlusQueue()
        let events = APlusLog<String>()
        let ran = DispatchSemaphore(value: 0)

        queue.queue.async {
            Guarantee.value(1).done(on: queue.queue) { _ in
                events.append("done")
                ran.signal()
            }
            _ = Guarantee.value(2).map(on: queue.queue) { _ in
                events.append("map")
                ran.signal()
            }
            events.append("attacher returned")
        }

        #expect(aplusWait(ran, count: 2))
        #expect(events.all == ["attacher returned", "done", "map"])
    }

    @Test("on: nil is the explicit opt-out: on a resolved promise the handler runs at once")
    func inlineHandlersRunAtOnce() {
        let events = APlusLog<String>()

        _ = Promise.value(1).map(on: nil) { _ in events.append("handler") }
        events.append("attacher returned")

        #expect(events.all == ["handler", "attacher returned"])
    }
}
