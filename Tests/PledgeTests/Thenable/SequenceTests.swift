import Dispatch
import Pledge
import Testing

/// A collection that can only move forward, to check `lastValue` on one.
private struct ForwardOnly: Collection, Sendable {
    let elements: [Int]
    var startIndex: Int { 0 }
    var endIndex: Int { elements.count }
    func index(after index: Int) -> Int { index + 1 }
    subscript(position: Int) -> Int { elements[position] }
}

@Suite struct SequenceTests {
    private let numbers = Promise.value([3, 1, 2])
    private let failed = Promise<[Int]>(error: ComboError.boom)

    @Test func mapValuesTransformsEveryElementInOrder() {
        #expect(numbers.mapValues(on: nil) { $0 * 10 }.value == [30, 10, 20])
        #expect(numbers.mapValues(on: nil) { "\($0)" }.value == ["3", "1", "2"])
    }

    @Test func mapValuesRejectsWhenTheTransformThrowsOrTheInputIsRejected() {
        let throwing = numbers.mapValues(on: nil) { value -> Int in
            if value == 1 { throw ComboError.numbered(value) }
            return value
        }

        #expect(throwing.error as? ComboError == .numbered(1))
        #expect(failed.mapValues(on: nil) { $0 }.error as? ComboError == .boom)
    }

    @Test func flatMapValuesConcatenates() {
        #expect(numbers.flatMapValues(on: nil) { [$0, $0] }.value == [3, 3, 1, 1, 2, 2])
        #expect(Promise.value(["ab", "c"]).flatMapValues(on: nil) { $0 }.value == ["a", "b", "c"])
        // A sequence type that is not Sendable is fine: only its elements cross threads.
        #expect(numbers.flatMapValues(on: nil) { AnySequence([$0]) }.value == [3, 1, 2])
        #expect(failed.flatMapValues(on: nil) { [$0] }.error as? ComboError == .boom)
    }

    @Test func compactMapValuesDropsNils() {
        let parsed = Promise.value(["1", "x", "3"]).compactMapValues(on: nil) { Int($0) }

        #expect(parsed.value == [1, 3])
        #expect(failed.compactMapValues(on: nil) { $0 }.error as? ComboError == .boom)
    }

    @Test func thenMapWaitsForEveryThenableAndKeepsElementOrder() {
        let pending = (0..<3).map { _ in Promise<String>.pending() }
        let all = Promise.value([0, 1, 2]).thenMap(on: nil) { pending[$0].promise }

        pending[2].resolver.fulfill("c")
        pending[0].resolver.fulfill("a")
        #expect(all.isPending)
        pending[1].resolver.fulfill("b")

        #expect(all.value == ["a", "b", "c"])
    }

    @Test func thenMapRejectsWithTheFirstRejectionOrThrow() {
        let rejected = numbers.thenMap(on: nil) { value -> Promise<Int> in
            value == 1 ? Promise(error: ComboError.numbered(1)) : Promise.value(value)
        }
        let thrown = numbers.thenMap(on: nil) { _ -> Promise<Int> in throw ComboError.boom }

        #expect(rejected.error as? ComboError == .numbered(1))
        #expect(thrown.error as? ComboError == .boom)
        #expect(failed.thenMap(on: nil) { Promise.value($0) }.error as? ComboError == .boom)
    }

    @Test func thenFlatMapConcatenatesTheValues() {
        let all = numbers.thenFlatMap(on: nil) { Promise.value([$0, -$0]) }

        #expect(all.value == [3, -3, 1, -1, 2, -2])
        let rejected = numbers.thenFlatMap(on: nil) { _ in Promise<[Int]>(error: ComboError.boom) }
        #expect(rejected.error as? ComboError == .boom)
    }

    @Test func filterValuesKeepsWhatIsIncluded() {
        #expect(numbers.filterValues(on: nil) { $0 > 1 }.value == [3, 2])
        #expect(failed.filterValues(on: nil) { _ in true }.error as? ComboError == .boom)
    }

    @Test func firstValueAndLastValue() {
        #expect(numbers.firstValue.value == 3)
        #expect(numbers.lastValue.value == 2)
        #expect(Promise.value(ForwardOnly(elements: [4, 5, 6])).lastValue.value == 6)
        #expect(Promise.value("xyz").lastValue.value == "z")
    }

    @Test func firstValueAndLastValueOfAnEmptyCollectionRejectWithEmptySequence() {
        let empty = Promise.value([Int]())

        #expect(comboIsPMKError(empty.firstValue.result, .emptySequence))
        #expect(comboIsPMKError(empty.lastValue.result, .emptySequence))
        #expect(comboIsPMKError(Promise.value(ForwardOnly(elements: [])).lastValue.result, .emptySequence))
        #expect(failed.firstValue.error as? ComboError == .boom)
        #expect(failed.lastValue.error as? ComboError == .boom)
    }

    @Test func firstValueWhereFindsTheFirstMatchOrRejectsWithEmptySequence() {
        #expect(numbers.firstValue(on: nil) { $0 < 3 }.value == 1)
        #expect(comboIsPMKError(numbers.firstValue(on: nil) { $0 > 5 }.result, .emptySequence))
        let empty = Promise.value([Int]()).firstValue(on: nil) { _ in true }
        #expect(comboIsPMKError(empty.result, .emptySequence))
    }

    @Test func sortedValuesSortsInIncreasingOrder() {
        #expect(numbers.sortedValues(on: nil).value == [1, 2, 3])
        #expect(Promise.value(Set(["b", "a"])).sortedValues(on: nil).value == ["a", "b"])
        #expect(failed.sortedValues(on: nil).error as? ComboError == .boom)
    }

    @Test func closuresRunOnTheGivenQueue() {
        let key = DispatchSpecificKey<Int>()
        let queue = DispatchQueue(label: "sequence.target")
        queue.setSpecific(key: key, value: 1)
        @Sendable func onQueue() -> Bool { DispatchQueue.getSpecific(key: key) == 1 }

        #expect(numbers.mapValues(on: queue) { _ in onQueue() }.comboValue() == [true, true, true])
        #expect(numbers.compactMapValues(on: queue) { _ in onQueue() }.comboValue() == [true, true, true])
        #expect(numbers.flatMapValues(on: queue) { _ in [onQueue()] }.comboValue() == [true, true, true])
        #expect(numbers.filterValues(on: queue) { _ in onQueue() }.comboValue() == [3, 1, 2])
        let thenMapped = numbers.thenMap(on: queue) { _ in Promise.value(onQueue()) }
        #expect(thenMapped.comboValue() == [true, true, true])
        #expect(numbers.firstValue(on: queue) { _ in onQueue() }.comboValue() == 3)
        #expect(numbers.sortedValues(on: queue).comboValue() == [1, 2, 3])
    }

    @Test func theHelpersUseTheDefaultMapQueue() {
        // With no `on:`, the closure runs on conf.Q.map, Pledge's own serial queue by default.
        let mapped = numbers.mapValues { $0 + 1 }

        #expect(mapped.comboValue() == [4, 2, 3])
    }
}
