import Pledge
import Testing

@Suite struct ResultStateTests {
    @Test func aSuccessIsFulfilledAndNotRejected() {
        let result = Result<Int, Error>.success(1)

        #expect(result.isFulfilled)
        #expect(!result.isRejected)
    }

    @Test func aFailureIsRejectedAndNotFulfilled() {
        let result = Result<Int, Error>.failure(TestError.boom)

        #expect(!result.isFulfilled)
        #expect(result.isRejected)
    }

    @Test func resultsWithATypedFailureAnswerToo() {
        let results: [Result<Int, TestError>] = [.success(1), .failure(.boom)]

        #expect(results.map(\.isFulfilled) == [true, false])
        #expect(results.map(\.isRejected) == [false, true])
    }

    @Test func whenResolvedResultsSayWhichPromisesWereFulfilled() {
        // Given one fulfilled and one rejected promise
        let promises = [Promise.value(1), Promise<Int>(error: TestError.boom)]

        // When every result is gathered
        let results = when(resolved: promises).wait()

        // Then each result says how its promise ended, as PromiseKit's results did
        #expect(results.map(\.isFulfilled) == [true, false])
        #expect(results.map(\.isRejected) == [false, true])
    }
}
