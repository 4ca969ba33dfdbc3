import Testing

@testable import Pledge

/// The scheduler that decides, for each hop of a run, whether it becomes the block's tail or is
/// dispatched, driven directly through its transitions.
@Suite struct BlockSharingTests {
    /// A stand-in for the objects a tail keeps.
    final class Token {}

    /// A tail whose name tells the tests apart; running it is never needed here.
    static func tail() -> Tail {
        Tail(box: Retained(Token()).erased(), source: Retained(Token()).erased()) { _, _, _, _ in nil }
    }

    /// What a hop's offer came to, without the tails themselves.
    enum Outcome: Equatable {
        case held
        case dispatched(afterEarlierTail: Bool)
    }

    /// Holds the scheduler, so that `#expect` can call its transitions (it cannot pass a
    /// noncopyable value `inout`).
    final class Driver {
        var sharing: BlockSharing

        init(sharing: Bool) {
            self.sharing = BlockSharing(sharing: sharing)
        }

        func startFiring() {
            sharing.startFiring()
        }

        func offer(sameQueue: Bool) -> Outcome {
            switch sharing.offer(BlockSharingTests.tail(), sameQueue: sameQueue) {
            case .held:
                return .held
            case .dispatch(_, let earlier):
                return .dispatched(afterEarlierTail: earlier != nil)
            }
        }

        func takesTail() -> Bool {
            sharing.takeTail() != nil
        }

        /// Whether a hop dispatched whatever the run says hands back a tail to dispatch first.
        func dispatchedHandsBackATail(sameQueue: Bool) -> Bool {
            sharing.dispatched(sameQueue: sameQueue) != nil
        }
    }

    @Test func aRunThatIsNotASharingBlockDispatchesEveryHop() {
        let driver = Driver(sharing: false)
        driver.startFiring()

        #expect(driver.offer(sameQueue: true) == .dispatched(afterEarlierTail: false))
        #expect(!driver.takesTail())
    }

    @Test func theFirstHopOfTheFiringBoxToTheBlocksQueueBecomesTheTail() {
        let driver = Driver(sharing: true)
        driver.startFiring()

        #expect(driver.offer(sameQueue: true) == .held)
        #expect(driver.takesTail())
        #expect(!driver.takesTail())
    }

    @Test func noHopBecomesTheTailBeforeABoxStartsFiring() {
        let driver = Driver(sharing: true)

        #expect(driver.offer(sameQueue: true) == .dispatched(afterEarlierTail: false))
    }

    @Test func aHopToAnotherQueueUsesUpTheFiringBoxsFirstHop() {
        let driver = Driver(sharing: true)
        driver.startFiring()

        #expect(driver.offer(sameQueue: false) == .dispatched(afterEarlierTail: false))
        #expect(driver.offer(sameQueue: true) == .dispatched(afterEarlierTail: false))
        // That dispatch to the block's own queue closed the block: no later box may hop inline.
        driver.startFiring()
        #expect(driver.offer(sameQueue: true) == .dispatched(afterEarlierTail: false))
    }

    @Test func aLaterHopOfTheSameBoxToTheSameQueueDispatchesTheTailFirst() {
        let driver = Driver(sharing: true)
        driver.startFiring()
        #expect(driver.offer(sameQueue: true) == .held)

        #expect(driver.offer(sameQueue: true) == .dispatched(afterEarlierTail: true))
        #expect(!driver.takesTail())
    }

    @Test func aLaterHopOfTheSameBoxToAnotherQueueLeavesTheTailInPlace() {
        let driver = Driver(sharing: true)
        driver.startFiring()
        #expect(driver.offer(sameQueue: true) == .held)

        #expect(driver.offer(sameQueue: false) == .dispatched(afterEarlierTail: false))
        #expect(driver.takesTail())
    }

    @Test func aHopOfALaterBoxToTheSameQueueKeepsTheEarlierBoxsTailAndClosesTheBlock() {
        let driver = Driver(sharing: true)
        driver.startFiring()
        #expect(driver.offer(sameQueue: true) == .held)

        driver.startFiring()
        #expect(driver.offer(sameQueue: true) == .dispatched(afterEarlierTail: false))
        #expect(driver.takesTail())
        driver.startFiring()
        #expect(driver.offer(sameQueue: true) == .dispatched(afterEarlierTail: false))
    }

    @Test func aBlockTakesAtMostHopsPerBlockHopsInline() {
        let driver = Driver(sharing: true)
        for _ in 0..<BlockSharing.hopsPerBlock {
            driver.startFiring()
            #expect(driver.offer(sameQueue: true) == .held)
            #expect(driver.takesTail())
        }

        driver.startFiring()
        #expect(driver.offer(sameQueue: true) == .dispatched(afterEarlierTail: false))
    }

    @Test func aHopDispatchedWhateverTheRunSaysCountsAsTheFirstHop() {
        let driver = Driver(sharing: true)
        driver.startFiring()

        #expect(!driver.dispatchedHandsBackATail(sameQueue: false))
        #expect(driver.offer(sameQueue: true) == .dispatched(afterEarlierTail: false))
    }

    @Test func aHopDispatchedWhateverTheRunSaysToTheSameQueueDispatchesTheFiringBoxsTailFirst() {
        let driver = Driver(sharing: true)
        driver.startFiring()
        #expect(driver.offer(sameQueue: true) == .held)

        #expect(driver.dispatchedHandsBackATail(sameQueue: true))
        #expect(!driver.takesTail())
    }
}
