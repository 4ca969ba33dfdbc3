import Pledge
import Testing

/// Resolving a chain runs its handlers from a loop, so stack depth does not grow with the length
/// of the chain. Each test resolves a long chain on a thread with a small stack: recursion would
/// overflow it and crash.
@Suite struct TrampolineTests {
    @Test func aMillionInlineMapsResolveWithoutGrowingTheStack() {
        let (head, resolver) = Promise<Int>.pending()
        var tail = head
        for _ in 0..<1_000_000 { tail = tail.map(on: nil) { $0 + 1 } }

        #expect(onASmallStack { resolver.fulfill(0) })

        #expect(tail.value == 1_000_000)
    }

    @Test func aLongChainOfThensReturningResolvedPromisesDoesNotGrowTheStack() {
        let (head, resolver) = Promise<Int>.pending()
        var tail = head
        for _ in 0..<100_000 { tail = tail.then(on: nil) { Promise.value($0 + 1) } }

        #expect(onASmallStack { resolver.fulfill(0) })

        #expect(tail.value == 100_000)
    }

    @Test func aRejectionPassingALongChainDoesNotGrowTheStack() {
        let (head, resolver) = Promise<Int>.pending()
        var tail = head
        for _ in 0..<100_000 { tail = tail.map(on: nil) { $0 + 1 } }
        let recovered = tail.recover(on: nil, policy: .allErrors) { _ in Promise.value(-1) }

        #expect(onASmallStack { resolver.reject(TestError.boom) })

        #expect(tail.error as? TestError == .boom)
        #expect(recovered.value == -1)
    }

    @Test func aLongGuaranteeChainDoesNotGrowTheStack() {
        let (head, resolve) = Guarantee<Int>.pending()
        var tail = head
        for _ in 0..<100_000 { tail = tail.map(on: nil) { $0 + 1 } }

        #expect(onASmallStack { resolve(0) })

        #expect(tail.value == 100_000)
    }

    @Test func aLongChainOfPromisesBridgingGuaranteesDoesNotGrowTheStack() {
        let (head, resolve) = Guarantee<Int>.pending()
        var tail = Promise(head)
        for _ in 0..<100_000 { tail = tail.then(on: nil) { Guarantee.value($0 + 1) } }

        #expect(onASmallStack { resolve(0) })

        #expect(tail.value == 100_000)
    }

    @Test func aLongChainOfMixedOperatorsDoesNotGrowTheStack() {
        let (head, resolver) = Promise<Int>.pending()
        var tail = head
        for step in 0..<100_000 {
            switch step % 4 {
            case 0: tail = tail.map(on: nil) { $0 + 1 }
            case 1: tail = tail.get(on: nil) { _ in }
            case 2: tail = tail.tap(on: nil) { _ in }
            default: tail = tail.ensure(on: nil) {}
            }
        }

        #expect(onASmallStack { resolver.fulfill(0) })

        #expect(tail.value == 25_000)
    }
}
