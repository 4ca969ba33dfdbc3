import Pledge
import Testing

extension ConfigurationTests {
    /// Abandoned promises whose operators capture other abandoned promises. Each dropped resolver
    /// logs `pendingPromiseDeallocated`, so these tests capture the log handler and live in the
    /// serialized suite.
    @Suite struct AbandonedCaptureTests {
        /// Each link's operator captures the previous link's promise; every resolver is gone.
        /// Releasing the last link releases its operator's closure, which releases the previous
        /// promise, and so on: that must happen from a loop, not once per link on the stack.
        @Test func operatorsCapturingAbandonedPromisesAreFreedInConstantStack() {
            let length = 50_000
            let holder = LinkHolder()
            LogCapture.capture { log in
                do {
                    var previous: Promise<Int>? = nil
                    for _ in 0..<length {
                        let (link, resolver) = Promise<Int>.pending()
                        _ = resolver
                        let captured = previous
                        _ = link.map(on: nil) { value in
                            withExtendedLifetime(captured) {}
                            return value
                        }
                        previous = link
                    }
                    holder.set(previous)
                }

                // A recursive release would overflow this thread's 512 KiB stack and crash.
                let finished = RendezvousThreads.run(count: 1, stackSize: 512 * 1024) { _ in holder.set(nil) }

                #expect(finished)
                #expect(log.eventsFromThisTest(ofKind: .pendingPromiseDeallocated).count == length)
            }
        }

        /// Every pending box shares one placeholder value, held without a reference count of its
        /// own; freeing an unsealed box must leave that count as it found it. Thousands of
        /// abandoned boxes of every kind, then promises made and resolved as usual: an unbalanced
        /// count would free the placeholder and crash here.
        @Test func abandoningManyPendingPromisesLeavesOtherPromisesWorking() {
            LogCapture.capture { log in
                for _ in 0..<10_000 {
                    let (promise, resolver) = Promise<Int>.pending()
                    _ = promise.map(on: nil) { $0 + 1 }.done(on: nil) { _ in }
                    let (guarantee, resolve) = Guarantee<Int>.pending()
                    _ = guarantee.map(on: nil) { $0 + 1 }
                    _ = (resolver, resolve)
                }

                let (promise, resolver) = Promise<Int>.pending()
                let result = promise.map(on: nil) { $0 + 1 }
                resolver.fulfill(41)

                #expect(result.value == 42)
                #expect(log.eventsFromThisTest(ofKind: .pendingPromiseDeallocated).count == 10_000)
            }
        }
    }
}

/// Holds the last link until another thread releases it.
private final class LinkHolder: @unchecked Sendable {
    // Safety: set on the test's thread before the releasing thread starts, and cleared only by
    // that thread, which the test waits for.
    private var link: Promise<Int>?

    func set(_ link: Promise<Int>?) {
        self.link = link
    }
}
