import Dispatch
import Pledge
import Testing

/// `conf` is read and written from many threads at once.
///
/// Other tests run in parallel and read `conf`, so the writers here only ever write the default
/// values: the writes race with the reads, but nobody can observe a value other than the
/// defaults, and the defaults are written back at the end whatever happens.
@Suite("Stress — conf read and written from many threads")
struct StressConfigurationTests {
    static let writers = 2
    static let readers = 4

    @Test("reads during writes always see a whole, valid configuration")
    func readsDuringWritesSeeTheDefaults() {
        let iterations = RendezvousScale.scaled(20_000, minimum: 2_000)
        let defaultQueue = PMKConfiguration.defaultQueue
        defer {
            conf.Q = (PMKConfiguration.defaultQueue, PMKConfiguration.defaultQueue)
            conf.catchPolicy = .allErrorsExceptCancellation
        }
        let wrongReads = RendezvousTally()
        let reads = RendezvousTally()
        let gate = RendezvousGate()

        let threads = Self.writers + Self.readers
        DispatchQueue(label: "stress.conf.opener").async { gate.open(whenWaiting: threads) }
        let finished = RendezvousThreads.run(count: threads) { thread in
            gate.wait()
            for iteration in 0..<iterations {
                if thread < Self.writers {
                    switch iteration % 4 {
                    case 0: conf.Q = (defaultQueue, defaultQueue)
                    case 1: conf.Q.map = defaultQueue
                    case 2: conf.Q.return = defaultQueue
                    default: conf.catchPolicy = .allErrorsExceptCancellation
                    }
                } else {
                    let queues = conf.Q
                    let policy = conf.catchPolicy
                    _ = conf.logHandler
                    if queues.map !== defaultQueue || queues.return !== defaultQueue
                        || policy != .allErrorsExceptCancellation
                    {
                        wrongReads.add()
                    }
                    reads.add()
                }
            }
        }

        #expect(finished, "the threads did not finish in time")
        #expect(reads.total == Self.readers * iterations)
        #expect(wrongReads.total == 0)
    }
}
