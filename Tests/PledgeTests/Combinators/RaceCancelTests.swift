import Pledge
import Testing

extension RaceTests {
    /// An input raced twice is one dependent of the race: cancelling the race cancels it.
    @Test func cancellingARaceCancelsAnInputGivenTwice() {
        let (input, _) = Promise<Int>.pending()
        let raced = race([input, input])
        raced.cancel()
        #expect(raced.isCancelled)
        #expect(input.isCancelled)
    }

    @Test func cancellingAVariadicRaceCancelsAnInputGivenTwice() {
        let (input, _) = Promise<Int>.pending()
        race(input, input).cancel()
        #expect(input.isCancelled)
    }

    @Test func cancellingARaceForTheFirstFulfilmentCancelsAnInputGivenTwice() {
        let (input, _) = Promise<Int>.pending()
        let (other, _) = Promise<Int>.pending()
        race(fulfilled: [input, other, input]).cancel()
        #expect(input.isCancelled)
        #expect(other.isCancelled)
    }

    /// An input given twice still wins once, with its value.
    @Test func anInputGivenTwiceWinsOnce() {
        let (input, resolver) = Promise<Int>.pending()
        let raced = race([input, input])
        resolver.fulfill(3)
        #expect(raced.settledValue() == 3)
    }
}
