import Pledge
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Threads read a promise's state (`result`, `isPending`, `value`, `error`, …) in a tight loop
/// while another thread resolves it.
///
/// Every read must see either "pending" or the complete result, never a torn or stale value, and
/// once a thread has seen the result it must never see "pending" again. The values are strings
/// and the reasons objects, so a torn read would show up as a wrong value or a crash, and
/// ThreadSanitizer sees every unsynchronised access.
@Suite("Stress — reading state while another thread resolves")
struct StressStateReadTests {
    static let readers = 3

    @Test("readers see pending, then the whole result, and never go back")
    func readersSeeAConsistentState() {
        let rounds = RendezvousScale.scaled(3_000, minimum: 300)
        let expected = (0..<rounds).map { "value \($0)" }
        let promises = (0..<rounds).map { _ in Promise<String>.pending() }
        let guarantees = (0..<rounds).map { _ in Guarantee<String>.pending() }
        let inconsistent = RendezvousTally()
        let pendingReads = RendezvousTally()
        let resolvedReads = RendezvousTally()
        let barrier = RendezvousBarrier(parties: Self.readers + 1)

        let finished = RendezvousThreads.run(count: Self.readers + 1) { thread in
            for round in 0..<rounds {
                barrier.arriveAndWait()
                let promise = promises[round].promise
                let guarantee = guarantees[round].guarantee
                let fulfils = round.isMultiple(of: 2)
                if thread == Self.readers {
                    if fulfils {
                        promises[round].resolver.fulfill(expected[round])
                    } else {
                        promises[round].resolver.reject(StressReason(round))
                    }
                    guarantees[round].resolve(expected[round])
                    continue
                }
                var sawPromiseResolved = false
                var sawGuaranteeResolved = false
                var readsAfterResolution = 0
                var spins = 0
                // Read until both are resolved, then a few more times to check they stay so.
                while readsAfterResolution < 8 {
                    let promiseOK = Self.check(
                        promise, expected: expected[round], round: round, fulfils: fulfils,
                        sawResolved: &sawPromiseResolved)
                    let guaranteeOK = Self.check(
                        guarantee, expected: expected[round], sawResolved: &sawGuaranteeResolved)
                    if !promiseOK || !guaranteeOK { inconsistent.add() }
                    if sawPromiseResolved && sawGuaranteeResolved {
                        readsAfterResolution += 1
                        resolvedReads.add()
                    } else {
                        pendingReads.add()
                        spins += 1
                        if spins > 64 { sched_yield() }
                    }
                }
            }
        }

        #expect(finished, "the threads did not finish in time")
        #expect(inconsistent.total == 0)
        // The readers did catch promises still pending: the reads overlapped the resolution.
        #expect(pendingReads.total > 0)
        #expect(resolvedReads.total == 8 * Self.readers * rounds)
    }

    /// Reads every piece of `promise`'s state once and checks that they agree with each other
    /// and with the expected outcome; updates `sawResolved`.
    ///
    /// - Returns: Whether everything read was consistent.
    private static func check(
        _ promise: Promise<String>, expected: String, round: Int, fulfils: Bool, sawResolved: inout Bool
    ) -> Bool {
        let result = promise.result
        let isPending = promise.isPending
        let value = promise.value
        let error = promise.error
        let description = promise.description
        guard let result else {
            // Pending now: it must not have been resolved before.
            return !sawResolved
        }
        sawResolved = true
        // Once resolved, every later read sees the same result.
        guard !isPending, promise.isResolved else { return false }
        switch result {
        case .success(let got):
            return fulfils && got == expected && value == expected && error == nil
                && promise.isFulfilled && description == "Promise(\(expected))"
        case .failure(let got):
            return !fulfils && (got as? StressReason)?.id == round && value == nil
                && (error as? StressReason)?.id == round && promise.isRejected
        }
    }

    /// The same for a guarantee.
    private static func check(_ guarantee: Guarantee<String>, expected: String, sawResolved: inout Bool) -> Bool {
        guard let value = guarantee.value else { return !sawResolved }
        sawResolved = true
        return value == expected && !guarantee.isPending && guarantee.result != nil
            && guarantee.description == "Guarantee(\(expected))"
    }
}
