import Foundation
import Pledge
import PledgeFoundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Foundation's cancellation errors, and readable descriptions of Pledge's errors.
@Suite struct FoundationErrorTests {
    @Test func urlErrorCancelledIsACancellation() {
        let error: Error = URLError(.cancelled)
        #expect(error.isCancelled)
        #expect(!(URLError(.timedOut) as Error).isCancelled)
        #expect(Promise<Int>(error: error).isCancelled)
    }

    @Test func cocoaErrorUserCancelledIsACancellation() {
        let error: Error = CocoaError(.userCancelled)
        #expect(error.isCancelled)
        #expect(!(CocoaError(.fileNoSuchFile) as Error).isCancelled)
    }

    @Test func catchSkipsAURLErrorCancellationUnderTheDefaultPolicy() throws {
        let caught = Locked(0)
        let recovered = Promise<Int>(error: URLError(.cancelled)).recover(on: nil) { error -> Promise<Int> in
            caught.mutate { $0 += 1 }
            throw error
        }
        #expect(recovered.isCancelled)
        #expect(caught.value == 0)
    }

    @Test func pmkErrorLocalizedDescriptionIsItsDescription() {
        for error in [PMKError.cancelled, .timedOut, .badInput, .compactMap("1", "Int")] {
            #expect(error.localizedDescription == error.description)
        }
    }
}
