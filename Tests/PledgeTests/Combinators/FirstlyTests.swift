import Pledge
import Testing

@Suite struct FirstlyTests {
    @Test func firstlyRunsItsBodyAtOnceAndFollowsThePromiseItReturns() {
        let ran = AtomicFlag()
        let (inner, resolver) = Promise<Int>.pending()

        let started = firstly { () -> Promise<Int> in
            ran.set()
            return inner
        }

        #expect(ran.isSet)
        #expect(started.isPending)
        resolver.fulfill(1)
        #expect(started.value == 1)
    }

    @Test func firstlyRejectsWhenItsBodyThrows() {
        let started = firstly { () throws -> Promise<Int> in throw TestError.boom }

        #expect(started.error as? TestError == .boom)
    }

    @Test func firstlyFollowsARejectedPromise() {
        let started = firstly { Promise<Int>(error: TestError.other) }

        #expect(started.error as? TestError == .other)
    }

    @Test func firstlyWithAThrowingBodyReturningAGuaranteeYieldsAPromise() {
        let started = firstly { () throws -> Guarantee<Int> in Guarantee.value(3) }

        #expect(type(of: started) == Promise<Int>.self)
        #expect(started.value == 3)
    }

    @Test func firstlyWithAGuaranteeYieldsThatGuarantee() {
        let guarantee = Guarantee.value(4)

        let started = firstly { guarantee }

        #expect(started === guarantee)
    }

    @Test func firstlyStartsAChainThatReadsTopToBottom() {
        let finished = firstly {
            Promise.value(1)
        }.map(on: nil) {
            $0 + 1
        }.then(on: nil) {
            Promise.value($0 * 10)
        }

        #expect(finished.value == 20)
    }
}
