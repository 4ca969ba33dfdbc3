import Dispatch
import Pledge
import PledgeTesting
import Testing

struct Oops: Error {}

/// `LogRecorder`: the events one test causes, and none of another's.
@Suite struct LogRecorderTests {
    @Test func itRecordsWhatTheOperationAndItsHandlersLog() async {
        let log = LogRecorder()
        await log.record {
            Promise<Int>(error: Oops()).cauterize()
            Promise.value(1).done(on: .global()) { _ in Promise<Int>(error: Oops()).cauterize() }.cauterize()
            #expect(await waitUntilIdle())
        }
        #expect(log.events.count == 2)
        #expect(log.events.allSatisfy { if case .cauterized = $0 { true } else { false } })
        #expect(log.messages.count == 2)
        log.removeAll()
        #expect(log.events.isEmpty)
    }

    @Test(arguments: 0..<4)
    func parallelRecordersSeeOnlyTheirOwnEvents(_ test: Int) async {
        let log = LogRecorder()
        await log.record {
            for _ in 0...test {
                Promise.value(1).done(on: .global()) { _ in Promise<Int>(error: Oops()).cauterize() }.cauterize()
            }
            #expect(await waitUntilIdle())
        }
        #expect(log.events.count == test + 1)
    }

    @Test func eventsOfAnotherRecordingGoThere() {
        let (log, other) = (LogRecorder(), LogRecorder())
        log.record {
            Promise<Int>(error: Oops()).cauterize()
            #expect(waitUntilIdle())
        }
        other.record {
            Promise<Int>(error: Oops()).cauterize()
            Promise<Int>(error: Oops()).cauterize()
            #expect(waitUntilIdle())
        }
        #expect(log.events.count == 1)
        #expect(other.events.count == 2)
    }
}
