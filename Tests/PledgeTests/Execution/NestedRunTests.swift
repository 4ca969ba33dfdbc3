import Pledge
import Testing

/// Chains whose links are made of user code that resolves the next promise: a `Resolver` called
/// from a handler, `pipe(to:)` into a resolver, `Promise { seal in … }` following another
/// promise. Each link starts a run inside the run of the link before it; past a bounded depth the
/// work goes to the running loop instead, so such chains of any length resolve on a small stack.
@Suite struct NestedRunTests {
    static let links = 1_000_000

    @Test func aMillionLinksOfPipeIntoAResolverResolveOnASmallStack() {
        let (head, resolver) = Promise<Int>.pending()
        var tail = head
        for _ in 0..<Self.links {
            let (next, nextResolver) = Promise<Int>.pending()
            tail.pipe(to: nextResolver.resolve)
            tail = next
        }

        #expect(onASmallStack { resolver.fulfill(7) })

        #expect(tail.value == 7)
    }

    @Test func aMillionLinksOfDoneFulfillingTheNextResolverResolveOnASmallStack() {
        let (head, resolver) = Promise<Int>.pending()
        var tail = head
        for _ in 0..<Self.links {
            let (next, nextResolver) = Promise<Int>.pending()
            tail.done(on: nil) { nextResolver.fulfill($0 + 1) }.ignoreErrors()
            tail = next
        }

        #expect(onASmallStack { resolver.fulfill(0) })

        #expect(tail.value == Self.links)
    }

    @Test func aMillionPromisesFollowingTheOneBeforeThroughTheirSealResolveOnASmallStack() {
        let (head, resolver) = Promise<Int>.pending()
        var tail = head
        for _ in 0..<Self.links {
            let inner = tail
            tail = Promise { seal in inner.pipe(to: seal.resolve) }
        }

        #expect(onASmallStack { resolver.fulfill(3) })

        #expect(tail.value == 3)
    }

    /// Resolving a promise from a handler and then waiting for what its handlers do works as it
    /// did before: at the depths where code does this, the handlers still run inside `fulfill`.
    @Test func aHandlerThatResolvesAPromiseCanWaitForItsHandlersAtOrdinaryDepths() throws {
        let (outer, outerResolver) = Promise<Int>.pending()
        let (inner, innerResolver) = Promise<Int>.pending()
        let doubled = inner.map(on: nil) { $0 * 2 }
        let result = outer.map(on: nil) { value -> Int in
            innerResolver.fulfill(value)
            // Already resolved: `fulfill` ran `doubled`'s handler before returning.
            return (try? doubled.wait()) ?? -1
        }

        outerResolver.fulfill(21)

        #expect(try result.wait() == 42)
    }

    /// Ten levels of handlers, each resolving the next promise and reading the result of its
    /// handlers at once, all see them run before `fulfill` returns.
    @Test func resolvingInsideNestedHandlersRunsTheirHandlersAtOnceUpToADepthOfTen() {
        let depth = 10
        let pairs = (0...depth).map { _ in Promise<Int>.pending() }
        let seen = Recorder<Int?>()
        for level in 0..<depth {
            let next = pairs[level + 1]
            let mapped = next.promise.map(on: nil) { $0 + 1 }
            pairs[level].promise.done(on: nil) { value in
                next.resolver.fulfill(value)
                seen.append(mapped.value)
            }.ignoreErrors()
        }

        pairs[0].resolver.fulfill(0)

        #expect(seen.all.count == depth)
        #expect(seen.all.allSatisfy { $0 != nil })
    }

    /// A chain of `count` promises, each resolving the next through `pipe(to:)`: every link
    /// nests one run inside the one before, so the chain's last handlers run past the nesting
    /// limit.
    private static func resolverChain(_ count: Int) -> (head: Resolver<Int>, tail: Promise<Int>) {
        let (head, resolver) = Promise<Int>.pending()
        var tail = head
        for _ in 0..<count {
            let (next, nextResolver) = Promise<Int>.pending()
            tail.pipe(to: nextResolver.resolve)
            tail = next
        }
        return (resolver, tail)
    }

    /// Past the nesting limit a promise resolved in a handler fires only after the handler
    /// returns; `wait()` runs that work first, so waiting for it still ends.
    @Test(arguments: [14, 15, 40])
    func aHandlerPastTheNestingLimitCanResolveAPromiseAndWaitForItsHandlers(links: Int) {
        let (head, tail) = Self.resolverChain(links)
        let waited = Recorder<Int>()
        tail.done(on: nil) { value in
            let (inner, innerResolver) = Promise<Int>.pending()
            let mapped = inner.map(on: nil) { $0 + 1 }
            innerResolver.fulfill(value)
            waited.append((try? mapped.wait()) ?? -1)
        }.ignoreErrors()

        #expect(onAThreadOfItsOwn { head.fulfill(1) })

        #expect(waited.all == [2])
    }

    /// Past the nesting limit, a handler that attaches to a promise another thread is still
    /// firing leaves its help to the running loop; `wait()` runs it first, so the handler does
    /// not wait for the other thread's blocked handler.
    @Test func aHandlerPastTheNestingLimitAttachingToAnotherThreadsFiringPromiseCanWait() {
        let firing = BlockedFiring()
        #expect(firing.resolve())
        let (head, tail) = Self.resolverChain(20)
        let waited = Recorder<Int>()
        tail.done(on: nil) { _ in
            waited.append((try? firing.promise.map(on: nil) { $0 + 1 }.wait()) ?? -1)
        }.ignoreErrors()

        #expect(onAThreadOfItsOwn { head.fulfill(0) })

        #expect(waited.all == [2])
        firing.release()
        #expect(firing.waitUntilResolved())
    }
}
