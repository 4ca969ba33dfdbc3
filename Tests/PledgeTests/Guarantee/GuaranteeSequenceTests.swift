import Dispatch
import Pledge
import Testing

@Suite struct GuaranteeSequenceTests {
    private let numbers = Guarantee.value([3, 1, 2])

    @Test func nonThrowingHelpersKeepTheChainAGuarantee() {
        let mapped = numbers.mapValues(on: nil) { $0 * 2 }
        let flat = numbers.flatMapValues(on: nil) { [$0, $0] }
        let compact = numbers.compactMapValues(on: nil) { $0 > 1 ? $0 : nil }
        let filtered = numbers.filterValues(on: nil) { $0 != 1 }
        let sorted = numbers.sortedValues(on: nil)
        let sortedBy = numbers.sortedValues(on: nil) { $0 > $1 }
        let sortedByLabel = numbers.sortedValues(on: nil, by: >)

        #expect(comboStaticType(mapped) == "Guarantee<Array<Int>>")
        #expect(comboStaticType(flat) == "Guarantee<Array<Int>>")
        #expect(comboStaticType(compact) == "Guarantee<Array<Int>>")
        #expect(comboStaticType(filtered) == "Guarantee<Array<Int>>")
        #expect(comboStaticType(sorted) == "Guarantee<Array<Int>>")
        #expect(comboStaticType(sortedBy) == "Guarantee<Array<Int>>")
        #expect(comboStaticType(sortedByLabel) == "Guarantee<Array<Int>>")
        #expect(sortedByLabel.value == [3, 2, 1])
        #expect(mapped.value == [6, 2, 4])
        #expect(flat.value == [3, 3, 1, 1, 2, 2])
        #expect(compact.value == [3, 2])
        #expect(filtered.value == [3, 2])
        #expect(sorted.value == [1, 2, 3])
        #expect(sortedBy.value == [3, 2, 1])
    }

    @Test func aThrowingClosureTurnsTheChainIntoAPromise() {
        let mapped = numbers.mapValues(on: nil) { value throws -> Int in
            if value == 2 { throw ComboError.boom }
            return value
        }

        #expect(comboStaticType(mapped) == "Promise<Array<Int>>")
        #expect(mapped.error as? ComboError == .boom)
    }

    @Test func thenMapWaitsForEveryGuaranteeInElementOrder() {
        let pending = (0..<3).map { _ in Guarantee<String>.pending() }
        let all = Guarantee.value([0, 1, 2]).thenMap(on: nil) { pending[$0].guarantee }

        #expect(comboStaticType(all) == "Guarantee<Array<String>>")
        pending[1].resolve("b")
        pending[2].resolve("c")
        #expect(all.isPending)
        pending[0].resolve("a")

        #expect(all.value == ["a", "b", "c"])
    }

    @Test func thenFlatMapConcatenatesGuaranteedSequences() {
        let all = numbers.thenFlatMap(on: nil) { Guarantee.value([$0, $0 * 10]) }

        #expect(comboStaticType(all) == "Guarantee<Array<Int>>")
        #expect(all.value == [3, 30, 1, 10, 2, 20])
    }

    @Test func promiseReturningTransformsGiveAPromiseThatCanReportFailure() {
        // PromiseKit returns a guarantee here and traps if a promise rejects; Pledge picks the
        // Thenable form, so the rejection is reported.
        let mapped = numbers.thenMap(on: nil) { _ in Promise<Int>(error: ComboError.boom) }
        let flat = numbers.thenFlatMap(on: nil) { _ in Promise<[Int]>(error: ComboError.boom) }

        #expect(comboStaticType(mapped) == "Promise<Array<Int>>")
        #expect(comboStaticType(flat) == "Promise<Array<Int>>")
        #expect(mapped.error as? ComboError == .boom)
        #expect(flat.error as? ComboError == .boom)
    }

    @Test func emptySequencesWork() {
        let empty = Guarantee.value([Int]())

        #expect(empty.mapValues(on: nil) { $0 }.value == [])
        #expect(empty.thenMap(on: nil) { Guarantee.value($0) }.value == [])
        #expect(empty.sortedValues(on: nil).value == [])
        #expect(comboIsPMKError(empty.firstValue.result, .emptySequence))
    }

    @Test func closuresRunOnTheGivenQueue() {
        let key = DispatchSpecificKey<Int>()
        let queue = DispatchQueue(label: "guarantee-sequence.target")
        queue.setSpecific(key: key, value: 1)
        @Sendable func onQueue() -> Bool { DispatchQueue.getSpecific(key: key) == 1 }

        #expect(numbers.mapValues(on: queue) { _ in onQueue() }.comboValue() == [true, true, true])
        let thenMapped = numbers.thenMap(on: queue) { _ in Guarantee.value(onQueue()) }
        #expect(thenMapped.comboValue() == [true, true, true])
        #expect(numbers.sortedValues(on: queue) { _, _ in !onQueue() }.comboValue()?.count == 3)
        #expect(numbers.filterValues(on: queue) { _ in onQueue() }.comboValue() == [3, 1, 2])
    }
}
