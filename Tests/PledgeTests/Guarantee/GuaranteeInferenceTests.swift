import Pledge
import Testing

/// Which overload a closure on a guarantee picks: PromiseKit code relies on non-throwing
/// closures keeping a chain of guarantees a chain of guarantees, whatever their length.
@Suite struct GuaranteeInferenceTests {
    @Test func aMultiStatementMapOnAGuaranteeGivesAGuarantee() {
        let mapped = Guarantee.value(1).map(on: nil) { value in
            let next = value + 1
            return next
        }

        #expect(type(of: mapped) == Guarantee<Int>.self)
    }

    @Test func aMultiStatementThenOnAGuaranteeGivesAGuarantee() {
        let chained = Guarantee.value(1).then(on: nil) { value in
            let next = value + 1
            return Guarantee.value(next)
        }

        #expect(type(of: chained) == Guarantee<Int>.self)
    }

    @Test func aMultiStatementDoneOnAGuaranteeGivesAGuarantee() {
        let done = Guarantee.value(1).done(on: nil) { value in
            let next = value + 1
            _ = next
        }

        #expect(type(of: done) == Guarantee<Void>.self)
    }

    @Test func aMultiStatementGetOnAGuaranteeGivesAGuarantee() {
        let got = Guarantee.value(1).get(on: nil) { value in
            let next = value + 1
            _ = next
        }

        #expect(type(of: got) == Guarantee<Int>.self)
    }

    /// Statements that take `Any`, such as `print(value)`, gave the solver room to pick the
    /// thenable forms, which make promises.
    @Test func aMultiStatementMapThatLogsItsValueGivesAGuarantee() {
        let mapped = Guarantee.value(1).map { value in
            consume(value)
            return value + 1
        }

        #expect(type(of: mapped) == Guarantee<Int>.self)
    }

    @Test func aMultiStatementThenThatLogsItsValueGivesAGuarantee() {
        let chained = Guarantee.value(1).then { value in
            consume(value)
            return Guarantee.value(value)
        }

        #expect(type(of: chained) == Guarantee<Int>.self)
    }

    /// In Swift 6 a later closure that takes `Any` makes the compiler infer `Any` for the
    /// value, which is not `Sendable`; naming the closure's result type, as the README says,
    /// keeps the chain a chain of guarantees. (The Swift 5 client fixture checks the unannotated
    /// form.)
    @Test func aChainWhoseClosureNamesItsResultTypeStaysAGuarantee() {
        let done = Guarantee.value(1).map { value -> Int in
            consume(value)
            return value + 1
        }.done { value in
            consume(value)
        }

        #expect(type(of: done) == Guarantee<Void>.self)
    }

    @Test func aThrowingClosureOnAGuaranteeGivesAPromise() {
        let mapped = Guarantee.value(1).map(on: nil) { value in
            if value < 0 { throw TestError.boom }
            return value + 1
        }

        #expect(type(of: mapped) == Promise<Int>.self)
    }
}

/// Takes anything, as `print` does.
private func consume(_ value: Any) {}
