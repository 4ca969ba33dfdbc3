import Dispatch
import Pledge
import Testing

/// The fan-in behind `when` over inputs known in advance: one handler per distinct input, found
/// again by the input's identity when it resolves.
@Suite struct AllFanInTests {
    @Test func aPromiseGivenSeveralTimesFillsEveryPlaceItHolds() {
        let (repeated, resolver) = Promise<Int>.pending()
        let (other, otherResolver) = Promise<Int>.pending()
        let all = when(fulfilled: [repeated, other, repeated, repeated, other])

        resolver.fulfill(1)
        #expect(all.isPending)
        otherResolver.fulfill(2)

        #expect(all.value == [1, 2, 1, 1, 2])
    }

    @Test func aSettledPromiseGivenSeveralTimesFillsEveryPlaceAtOnce() {
        let settled = Promise.value(7)

        #expect(when(fulfilled: [settled, settled, settled]).value == [7, 7, 7])
        #expect(when(resolved: [settled, settled]).value?.map { try? $0.get() } == [7, 7])
    }

    @Test func aRejectedPromiseGivenSeveralTimesRejectsOnce() {
        let (repeated, resolver) = Promise<Int>.pending()
        let rejections = AtomicCounter()
        let all = when(fulfilled: [repeated, repeated])
        all.catch(on: nil) { _ in rejections.increment() }

        resolver.reject(ComboError.boom)

        #expect(all.error as? ComboError == .boom)
        #expect(rejections.value == 1)
    }

    /// Inputs resolved in a shuffled order, half of them from other threads, come back in input
    /// order.
    @Test func manyInputsResolvedInAnyOrderFromSeveralThreadsComeBackInInputOrder() {
        let count = 2_000
        let pending = (0..<count).map { _ in Promise<Int>.pending() }
        let all = when(fulfilled: pending.map(\.promise))
        let order = Array(0..<count).shuffled()

        DispatchQueue.concurrentPerform(iterations: 4) { part in
            for index in order[(part * count / 4)..<((part + 1) * count / 4)] {
                pending[index].resolver.fulfill(index)
            }
        }

        #expect(all.settledValue() == Array(0..<count))
    }

    @Test func inputsOfMixedPromisesAndGuaranteesAreFoundAgain() {
        let (promise, resolver) = Promise<Int>.pending()
        let (guarantee, resolve) = Guarantee<Int>.pending()
        let all = when(fulfilled: promise, Promise(guarantee))

        resolve(2)
        resolver.fulfill(1)

        #expect(all.value.map { [$0.0, $0.1] } == [1, 2])
    }
}

extension ConfigurationTests {
    /// Releasing a resolver unresolved is logged, so this lives in the serialized suite, which
    /// captures the log.
    @Suite struct AllFanInLifetimeTests {
        /// The fan-in keeps only the identities of its inputs: an input that can never resolve
        /// does not keep the others, or the closures attached after `when`, alive.
        @Test func anInputThatCanNeverResolveKeepsNothingAliveOnceReleased() {
            let counter = LifetimeCounter()
            LogCapture.capture { log in
                do {
                    let tracker = LifetimeTracker(counter)
                    let (stuck, stuckResolver) = Promise<Int>.pending()
                    let (other, otherResolver) = Promise<Int>.pending()
                    _ = when(fulfilled: [stuck, other]).done(on: nil) { _ in tracker.touch() }
                    otherResolver.fulfill(1)
                    // The resolver goes unresolved: `stuck` can never resolve.
                    withExtendedLifetime(stuckResolver) {}
                    _ = stuck
                }

                #expect(counter.alive == 0)
                #expect(log.eventsFromThisTest(ofKind: .pendingPromiseDeallocated).count == 1)
            }
        }
    }
}
