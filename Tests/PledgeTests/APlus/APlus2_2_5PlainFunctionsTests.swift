import Pledge
import Testing

/// Promises/A+ 2.2.5: handlers are called as plain functions, with no `this`.
///
/// Swift closures have no implicit receiver, so the spec's concern cannot arise; what is left to
/// check is that a handler is an ordinary function of the value: any function of the right type
/// can be passed (not only a closure literal), and it is given exactly the value, nothing else.
@Suite("2.2.5 — handlers are plain functions of the value")
struct APlus2_2_5PlainFunctionsTests {
    @Test("named functions can be passed as handlers")
    func namedFunctionsAreHandlers() throws {
        let doubled = Promise.value(21).map(on: nil, aplusDouble)
        let chained = Promise.value(21).then(on: nil, aplusDoubleLater)
        let caught = APlusLog<String>()
        Promise<Int>(error: APlusReason("named")).catch(on: nil, policy: .allErrors, caught.appendLabel)

        #expect(try aplusSettle(doubled)?.get() == 42)
        #expect(try aplusSettle(chained)?.get() == 42)
        #expect(caught.all == ["named"])
    }

    @Test("the handler is given exactly the value the promise holds")
    func theHandlerGetsExactlyTheValue() {
        let token = APlusToken("the value")
        let seen = APlusSlot<APlusToken>()

        _ = Promise.value(token).map(on: nil) { seen.value = $0 }

        #expect(seen.value === token)
    }
}

private func aplusDouble(_ value: Int) -> Int {
    value * 2
}

private func aplusDoubleLater(_ value: Int) -> Promise<Int> {
    Promise.value(value * 2)
}

extension APlusLog where Element == String {
    fileprivate func appendLabel(_ error: Error) {
        append((error as? APlusReason)?.label ?? "\(error)")
    }
}
