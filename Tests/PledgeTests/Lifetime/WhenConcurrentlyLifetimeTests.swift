import Pledge
import Testing

/// What `when(…, concurrently:)` keeps alive, and for how long.
@Suite struct WhenConcurrentlyLifetimeTests {
    /// Once a rejection has ended the wait, the iterator is never pulled again: it, and what the
    /// user's iterator captures, go at once, even while another input is still pending.
    @Test func aRejectionReleasesTheIteratorWhileAnotherInputIsPending() {
        let counter = LifetimeCounter()
        let (slow, slowResolver) = Promise<Int>.pending()
        let (failing, failingResolver) = Promise<Int>.pending()
        let result = startWhen(over: [slow, failing, Promise.value(3)], capturing: counter)
        #expect(counter.alive == 1)

        failingResolver.reject(TestError.boom)

        #expect(result.error as? TestError == .boom)
        #expect(counter.alive == 0)
        slowResolver.fulfill(1)
        #expect(counter.alive == 0)
    }

    /// An input already rejected when it is pulled ends the wait inside the pull itself: the
    /// pulling thread drops the iterator before `when` returns.
    @Test func anInputRejectedWhenPulledReleasesTheIteratorAtOnce() {
        let counter = LifetimeCounter()
        let (pending, resolver) = Promise<Int>.pending()
        let result = startWhen(over: [pending, Promise(error: TestError.boom), Promise.value(3)], capturing: counter)

        #expect(result.error as? TestError == .boom)
        #expect(counter.alive == 0)
        resolver.fulfill(1)
    }

    /// The documented pattern, thenables made inside `next()`: when one of them can never
    /// resolve (its resolver is released) and nothing else holds the wait, everything goes.
    @Test func thenablesMadeInNextThatNeverResolveFreeTheWholeWait() {
        let counter = LifetimeCounter()
        do {
            let tracker = LifetimeTracker(counter)
            var made = 0
            let inputs = AnyIterator<Promise<Int>> {
                defer { made += 1 }
                // The first input's resolver is released at once: it can never resolve.
                return made < 3 ? (made == 0 ? Promise<Int>.pending().promise : Promise.value(made)) : nil
            }
            _ = when(fulfilled: inputs, concurrently: 1).done(on: nil) { _ in tracker.touch() }
            #expect(counter.alive == 1)
        }
        #expect(counter.alive == 0)
    }

    private func startWhen(over inputs: [Promise<Int>], capturing counter: LifetimeCounter, limit: Int = 2)
        -> Promise<[Int]>
    {
        let tracker = LifetimeTracker(counter)
        var iterator = inputs.makeIterator()
        let source = AnyIterator<Promise<Int>> {
            tracker.touch()
            return iterator.next()
        }
        return when(fulfilled: source, concurrently: limit)
    }
}
