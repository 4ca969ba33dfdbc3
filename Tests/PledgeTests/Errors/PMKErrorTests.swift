import Pledge
import Testing

@Suite struct PMKErrorTests {
    static let allCases: [PMKError] = [
        .invalidCallingConvention, .returnedSelf, .badInput, .cancelled, .compactMap("1", "Swift.Int"),
        .emptySequence, .noWinner, .timedOut, .validationFailed("1", "Swift.Int"),
    ]

    @Test(arguments: allCases)
    func everyCaseHasAReadableDescriptionThatIsAlsoItsDebugDescription(error: PMKError) {
        #expect(!error.description.isEmpty)
        #expect(error.debugDescription == error.description)
        #expect("\(error)" == error.description)
    }

    @Test func descriptionsAreDistinctPerCase() {
        let descriptions = Self.allCases.map(\.description)
        let debugDescriptions = Self.allCases.map(\.debugDescription)

        #expect(Set(descriptions).count == Self.allCases.count)
        #expect(Set(debugDescriptions).count == Self.allCases.count)
    }

    /// PromiseKit 8.2's `debugDescription` of each case it has, word for word: code that
    /// printed or compared these messages sees the same text.
    @Test func casesPromiseKitHasReadAsPromiseKitsDo() {
        #expect(
            PMKError.invalidCallingConvention.debugDescription
                == "A closure was called with an invalid calling convention, probably (nil, nil)")
        #expect(PMKError.returnedSelf.debugDescription == "A promise handler returned itself")
        #expect(PMKError.cancelled.debugDescription == "The asynchronous sequence was cancelled")
        #expect(PMKError.compactMap("abc", "Int").debugDescription == "Could not `compactMap<Int>`: abc")
        #expect(
            PMKError.emptySequence.debugDescription
                == "The first or last element was requested for an empty sequence")
        #expect(PMKError.noWinner.debugDescription == "All thenables passed to race(fulfilled:) were rejected")
    }

    @Test func casesPromiseKitLacksReadInTheSameStyle() {
        #expect(PMKError.badInput.description == "Bad input was provided to a Pledge function")
        #expect(PMKError.timedOut.description == "The thenable passed to timeout() did not settle in time")
        #expect(PMKError.validationFailed("0", "Swift.Int").description == "Could not `validate<Swift.Int>`: 0")
    }

    @Test func compactMapFailureDescribesTheValueAndTheTypeWanted() {
        let error = PMKError.compactMapFailure([1, 2], to: Set<Int>.self)

        #expect(error == .compactMap("[1, 2]", "Set<Int>"))
        #expect(error.description == "Could not `compactMap<Set<Int>>`: [1, 2]")
    }

    @Test func compactMapErrorsWithDifferentValuesAreDifferent() {
        #expect(PMKError.compactMap("1", "Swift.Int") != PMKError.compactMap("2", "Swift.Int"))
        #expect(PMKError.compactMap("1", "Swift.Int") != PMKError.compactMap("1", "Swift.String"))
    }

    @Test func validationFailedDescribesTheValueAndItsType() {
        let error = PMKError.validationFailed("[1, 2]", "Swift.Array<Swift.Int>")

        #expect(error.description.contains("[1, 2]"))
        #expect(error.description.contains("Swift.Array<Swift.Int>"))
        #expect(error != PMKError.validationFailed("[1]", "Swift.Array<Swift.Int>"))
    }

    @Test func onlyCancelledIsACancellation() {
        for error in Self.allCases {
            #expect(error.isCancelled == (error == .cancelled), "\(error)")
            #expect((error as Error).isCancelled == (error == .cancelled), "\(error)")
        }
    }
}
