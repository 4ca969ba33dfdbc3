import Dispatch
import Pledge
import Testing

/// The storage behind promises and guarantees, seen through the public API: a box born resolved
/// (`Promise.value`, `Promise(error:)`, `Guarantee.value`) or one that starts pending, stores
/// handlers, and is sealed exactly once.
@Suite struct BoxTests {
    @Test func aBoxBornResolvedHasItsResultBeforeAnythingIsAttached() {
        #expect(Promise.value(1).isResolved)
        #expect(Promise<Int>(error: TestError.boom).isResolved)
        #expect(Guarantee.value(1).isResolved)
    }

    @Test func aPendingBoxRunsNoHandlerUntilItIsSealed() async {
        let (promise, resolver) = Promise<Int>.pending()

        await confirmation(expectedCount: 0) { handled in
            promise.pipe { _ in handled() }
        }
        await confirmation(expectedCount: 1) { handled in
            promise.pipe { _ in handled() }
            resolver.fulfill(1)
        }
    }

    @Test func handlersAttachedBeforeSealingRunInTheOrderTheyWereAttached() {
        let (promise, resolver) = Promise<Int>.pending()
        let order = Recorder<Int>()

        for index in 0..<20 { promise.pipe { _ in order.append(index) } }
        resolver.fulfill(0)

        #expect(order.all == Array(0..<20))
    }

    @Test func operatorsAndPlainHandlersOnOnePromiseRunInTheOrderTheyWereAttached() {
        // An operator's box is stored as its own handler, a `pipe` closure as a closure; one
        // promise with several of each keeps them in one list, in attachment order.
        let (promise, resolver) = Promise<Int>.pending()
        let order = Recorder<String>()
        _ = promise.map(on: nil) {
            order.append("map")
            return $0
        }
        promise.pipe { _ in order.append("pipe 1") }
        _ = promise.then(on: nil) { value -> Promise<Int> in
            order.append("then")
            return .value(value)
        }
        _ = promise.done(on: nil) { _ in order.append("done") }
        promise.pipe { _ in order.append("pipe 2") }
        promise.catch(on: nil) { _ in order.append("catch") }
        _ = promise.ensure(on: nil) { order.append("ensure") }

        resolver.fulfill(1)

        #expect(order.all == ["map", "pipe 1", "then", "done", "pipe 2", "ensure"])
    }

    @Test func theCascadesOfSeveralHandlersRunOneAfterAnotherInAttachmentOrder() {
        // Each handler of the gate resolves a box with handlers of its own, whose cascade waits
        // (on the trampoline's stack) while the gate runs its later handlers; so does each of
        // those handlers one level down. Cascades then run depth first, in attachment order.
        let (gate, resolver) = Promise<Int>.pending()
        let order = Recorder<String>()
        for child in 0..<3 {
            let middle = gate.map(on: nil) { value -> Int in
                order.append("\(child)")
                return value
            }
            for grandchild in 0..<3 {
                middle.map(on: nil) { value -> Int in
                    order.append("\(child).\(grandchild)")
                    return value
                }.done(on: nil) { _ in order.append("\(child).\(grandchild) done") }.ignoreErrors()
            }
        }

        resolver.fulfill(0)

        var expected = ["0", "1", "2"]
        for child in 0..<3 {
            expected += (0..<3).map { "\(child).\($0)" } + (0..<3).map { "\(child).\($0) done" }
        }
        #expect(order.all == expected)
    }

    @Test func aHandlerAttachedToASealedBoxRunsAtOnceOnTheCallingThread() {
        let promise = Promise.value(1)
        let ran = AtomicFlag()

        promise.pipe { _ in ran.set() }

        #expect(ran.isSet)
    }

    @Test func aHandlerAttachedWhileTheBoxRunsItsHandlersRunsAfterThoseAlreadyDue() {
        // Given a pending promise with handlers A and B, where A attaches C with `pipe`,
        let (promise, resolver) = Promise<Int>.pending()
        let order = Recorder<String>()
        promise.pipe { _ in
            order.append("A")
            promise.pipe { _ in order.append("C") }
        }
        promise.pipe { _ in order.append("B") }

        // when it is fulfilled,
        resolver.fulfill(1)

        // then C waits for B: handlers start in the order they were attached.
        #expect(order.all == ["A", "B", "C"])
    }

    @Test func theFirstSealWinsAndLaterSealsChangeNothing() {
        let (promise, resolver) = Promise<Int>.pending()

        resolver.reject(TestError.boom)
        resolver.fulfill(1)

        #expect(promise.error as? TestError == .boom)
    }

    @Test func concurrentSealsLeaveExactlyOneResultAndRunEachHandlerOnce() throws {
        let (promise, resolver) = Promise<Int>.pending()
        let runs = AtomicCounter()
        promise.pipe { _ in runs.increment() }

        DispatchQueue.concurrentPerform(iterations: 16) { resolver.fulfill($0) }

        #expect(runs.value == 1)
        #expect((0..<16).contains(try #require(promise.value)))
    }

    @Test func eachStageOfAChainRunsAfterTheStageBeforeIt() {
        let (promise, resolver) = Promise<Int>.pending()
        let order = Recorder<String>()

        _ = promise.map(on: nil) { _ in order.append("a") }.done(on: nil) { order.append("a2") }
        _ = promise.map(on: nil) { _ in order.append("b") }.done(on: nil) { order.append("b2") }
        resolver.fulfill(1)

        // Only the order within each promise and along each chain is promised; whether `a2`
        // runs before `b` is not.
        let seen = order.all
        #expect(seen.sorted() == ["a", "a2", "b", "b2"])
        let position = { (name: String) in seen.firstIndex(of: name) ?? -1 }
        #expect(position("a") < position("b"))
        #expect(position("a") < position("a2"))
        #expect(position("b") < position("b2"))
        #expect(position("a2") < position("b2"))
    }

    @Test func anInlineHandlerAttachedWhileTheBoxRunsItsHandlersRunsAfterThoseAlreadyDue() {
        // Given a pending promise with handlers A and B, where A attaches C with `map(on: nil)`,
        let (promise, resolver) = Promise<Int>.pending()
        let order = Recorder<String>()
        promise.pipe { _ in
            order.append("A")
            _ = promise.map(on: nil) { _ in order.append("C") }
        }
        promise.pipe { _ in order.append("B") }

        // when it is fulfilled,
        resolver.fulfill(1)

        // then C, attached after B, starts after B, as it does when attached with `pipe`.
        #expect(order.all == ["A", "B", "C"])
    }

    @Test func handlersAttachedByOneThreadWhileTheBoxFiresStartInTheOrderItAttachedThem() {
        // Given a handler that, while the promise fires, attaches C with `pipe` and then D with
        // `map(on: nil)`,
        let (promise, resolver) = Promise<Int>.pending()
        let order = Recorder<String>()
        promise.pipe { _ in
            order.append("A")
            promise.pipe { _ in order.append("C") }
            _ = promise.map(on: nil) { _ in order.append("D") }
        }

        // when the promise is fulfilled,
        resolver.fulfill(1)

        // then C, attached first, starts first.
        #expect(order.all == ["A", "C", "D"])
    }

    @Test func aBoxSealedOnAnotherThreadPublishesItsValueToReaders() {
        let queue = TestQueues.serial("box.publish")
        let (promise, resolver) = Promise<[Int]>.pending()

        queue.async { resolver.fulfill(Array(0..<1_000)) }

        #expect(promise.settledValue() == Array(0..<1_000))
    }
}
