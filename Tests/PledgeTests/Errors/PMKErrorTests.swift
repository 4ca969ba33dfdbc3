import Pledge
import Testing

@Suite struct PMKErrorTests {
    static let allCases: [PMKError] = [
        .invalidCallingConvention, .returnedSelf, .badInput, .cancelled, .compactMap("1", "Swift.Int"),
        .emptySequence, .noWinner, .timedOut, .validationFailed("1", "Swift.Int"),
    ]

    @Test(arguments: allCases)
    func everyCaseHasAReadableDescriptionAndDebugDescription(error: PMKError) {
        #expect(!error.description.isEmpty)
        #expect(!error.debugDescription.isEmpty)
        #expect(error.debugDescription != error.description)
        #expect(error.debugDescription.contains(error.description))
    }

    @Test func descriptionsAreDistinctPerCase() {
        let descriptions = Self.allCases.map(\.description)
        let debugDescriptions = Self.allCases.map(\.debugDescription)

        #expect(Set(descriptions).count == Self.allCases.count)
        #expect(Set(debugDescriptions).count == Self.allCases.count)
    }

    @Test func debugDescriptionNamesTheCase() {
        #expect(PMKError.invalidCallingConvention.debugDescription.hasPrefix("PMKError.invalidCallingConvention"))
        #expect(PMKError.returnedSelf.debugDescription.hasPrefix("PMKError.returnedSelf"))
        #expect(PMKError.badInput.debugDescription.hasPrefix("PMKError.badInput"))
        #expect(PMKError.cancelled.debugDescription.hasPrefix("PMKError.cancelled"))
        #expect(PMKError.compactMap("1", "Swift.Int").debugDescription.hasPrefix("PMKError.compactMap"))
        #expect(PMKError.emptySequence.debugDescription.hasPrefix("PMKError.emptySequence"))
        #expect(PMKError.noWinner.debugDescription.hasPrefix("PMKError.noWinner"))
        #expect(PMKError.timedOut.debugDescription.hasPrefix("PMKError.timedOut"))
        #expect(PMKError.validationFailed("1", "Swift.Int").debugDescription.hasPrefix("PMKError.validationFailed"))
    }

    @Test func compactMapFailureDescribesTheValueAndItsType() {
        let error = PMKError.compactMapFailure([1, 2])

        #expect(error == .compactMap("[1, 2]", "Swift.Array<Swift.Int>"))
        #expect(error.description.contains("[1, 2]"))
        #expect(error.description.contains("Swift.Array<Swift.Int>"))
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
