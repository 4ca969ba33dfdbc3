import Pledge
import Synchronization
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

        /// Every pending box holds the same placeholder value until it is sealed, which freeing
        /// the box destroys. Thousands of abandoned boxes of every kind, then promises made and
        /// resolved as usual: a placeholder whose destruction released something would crash
        /// here.
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

        /// The placeholder is one value for every `Result<T, Error>` layout: `T` empty (`Void`), a
        /// word (`Int`), a reference, an optional reference, several words, an enum with
        /// references, an error, and `Never`. For each, boxes freed pending (with and without an
        /// operator waiting) destroy it without touching anything, and sealed boxes hold their
        /// real value with the right count: every tracked object is freed once, and none leaks.
        @Test func pendingBoxesOfEveryLayoutAreFreedPendingOrSealed() {
            LogCapture.capture { log in
                var abandoned = 0
                func check<T: Sendable>(_ make: () -> T) {
                    for round in 0..<200 {
                        let (promise, resolver) = Promise<T>.pending()
                        let (guarantee, resolve) = Guarantee<T>.pending()
                        let mapped = promise.map(on: nil) { $0 }
                        if round.isMultiple(of: 2) {
                            resolver.fulfill(make())
                            resolve(make())
                            #expect(mapped.isFulfilled)
                            #expect(guarantee.value != nil)
                        } else {
                            abandoned += 1  // the promise's resolver logs; a guarantee's does not
                        }
                    }
                }
                check { () }
                check { 7 }
                check { Tracked() }
                check { Optional(Tracked()) }
                check { Optional<Tracked>.none }
                check { "a string too long to be stored inline in the value itself" }
                check { (1, 2, 3, 4, 5) }
                check { Shape.pair(Tracked(), Tracked()) }
                check { Shape.empty }
                check { Shape.one(Tracked()) }
                check { TestError.boom as any Error }
                check { [Tracked(), Tracked()] }
                for _ in 0..<200 { _ = Promise<Never>.pending() }
                abandoned += 200

                #expect(Tracked.alive.load(ordering: .relaxed) == 0)
                #expect(log.eventsFromThisTest(ofKind: .pendingPromiseDeallocated).count == abandoned)
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

/// An object that counts the instances alive, to show that values sealed into boxes are kept
/// and freed with balanced counts.
private final class Tracked: Sendable {
    static let alive = Atomic<Int>(0)

    init() { Tracked.alive.add(1, ordering: .relaxed) }
    deinit { Tracked.alive.subtract(1, ordering: .relaxed) }
}

/// An enum with empty and reference-holding cases, whose `Result` packs its cases in the
/// references' spare bits.
private enum Shape: Sendable {
    case empty
    case one(Tracked)
    case pair(Tracked, Tracked)
}
