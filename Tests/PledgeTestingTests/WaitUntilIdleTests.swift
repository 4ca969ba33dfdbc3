import Dispatch
import Pledge
import PledgeTesting
import Synchronization
import Testing

/// `waitUntilIdle`: returns once no work Pledge dispatched is queued or running.
@Suite struct WaitUntilIdleTests {
    @Test func aFireAndForgetChainHasRunWhenItReturns() async {
        let queue = DispatchQueue(label: "idle.chain")
        let steps = Mutex<[Int]>([])
        await conf.withScope(queues: (queue, queue)) {
            Promise.value(1).map { $0 + 1 }.then { value in after(seconds: 0.001).map { value + 1 } }
                .done { value in steps.withLock { $0.append(value) } }.cauterize()
            // The `after` timer is not Pledge's work until it fires: wait for the value itself.
            while steps.withLock({ $0.isEmpty }) { #expect(await waitUntilIdle()) }
        }
        #expect(steps.withLock { $0 } == [3])
    }

    @Test func itReturnsFalseWhileAHandlerRunsPastTheTimeout() async {
        let queue = DispatchQueue(label: "idle.blocked")
        let release = DispatchSemaphore(value: 0)
        let finished = Guarantee<Void>.pending()
        await conf.withScope {
            Promise.value(1).done(on: queue) { _ in release.wait() }.ensure(on: nil) { finished.resolve(()) }
                .cauterize()
            #expect(await waitUntilIdle(timeout: .milliseconds(50)) == false)
            release.signal()
            #expect(await waitUntilIdle())
        }
        await finished.guarantee.async()
    }

    /// Inside a scope it waits for that scope's work alone: a handler blocked outside it does not
    /// hold it.
    @Test func inAScopeItDoesNotWaitForWorkOutsideIt() async {
        let release = DispatchSemaphore(value: 0)
        let outside = Promise.value(1).done(on: DispatchQueue(label: "idle.outside")) { _ in release.wait() }
        let idle = await conf.withScope {
            Promise.value(1).map(on: .global()) { $0 }.cauterize()
            return await waitUntilIdle(timeout: .seconds(10))
        }
        #expect(idle)
        release.signal()
        _ = try? await outside.async()
    }

    @Test func theBlockingFormWaitsToo() {
        let queue = DispatchQueue(label: "idle.blocking")
        let ran = Atomic<Bool>(false)
        conf.withScope(queues: (queue, queue)) {
            Promise.value(1).done { _ in ran.store(true, ordering: .releasing) }.cauterize()
            #expect(waitUntilIdle())
        }
        let didRun = ran.load(ordering: .acquiring)
        #expect(didRun)
    }
}

/// `.pledgeScope`: each test in a scope of its own, so `waitUntilIdle` ignores what others run.
@Suite(.pledgeScope) struct PledgeScopeTraitTests {
    @Test func eachTestWaitsForItsOwnWorkAlone() async {
        let release = DispatchSemaphore(value: 0)
        // A detached task inherits no task-locals: its chain is outside this test's scope.
        let outside = await Task.detached {
            Promise.value(1).done(on: DispatchQueue(label: "trait.outside")) { _ in release.wait() }
        }.value
        let inside = Promise.value(1).map(on: .global()) { $0 + 1 }
        #expect(await waitUntilIdle(timeout: .seconds(10)))
        #expect(inside.value == 2)
        release.signal()
        _ = try? await outside.async()
    }

}
