import Dispatch
import Pledge

/// One operator's `on: any Dispatcher` form, applied to a settled input it acts on.
struct DispatcherOperatorCase: Sendable, CustomStringConvertible {
    let name: String
    /// Whether the operator has a closure to record from (`sortedValues()` has none).
    var hasClosure = true
    /// Applies the operator with `dispatcher`, calling `probe` from its closure; returns a wait
    /// for the operator's result, `true` once it has one.
    let run: @Sendable (CountingDispatcher, @escaping @Sendable () -> Void) -> () -> Bool

    var description: String { name }

    private static func waiting<U: Thenable>(_ thenable: U) -> () -> Bool {
        { thenable.settledResult() != nil }
    }

    private static let values = Promise.value([3, 1, 2])
    private static let failed = Promise<Int>(error: TestError.boom)
    private static let cached = Guarantee.value([3, 1, 2])

    static var all: [DispatcherOperatorCase] { thenables + catchers + guarantees }

    private static var thenables: [DispatcherOperatorCase] {
        var cases: [DispatcherOperatorCase] = []
        cases.append(
            DispatcherOperatorCase(name: "map") { d, p in
                waiting(
                    values.map(on: d) {
                        p()
                        return $0
                    })
            })
        cases.append(
            DispatcherOperatorCase(name: "compactMap") { d, p in
                waiting(
                    values.compactMap(on: d) {
                        p()
                        return $0.first
                    })
            })
        cases.append(DispatcherOperatorCase(name: "done") { d, p in waiting(values.done(on: d) { _ in p() }) })
        cases.append(DispatcherOperatorCase(name: "get") { d, p in waiting(values.get(on: d) { _ in p() }) })
        cases.append(DispatcherOperatorCase(name: "tap") { d, p in waiting(values.tap(on: d) { _ in p() }) })
        cases.append(
            DispatcherOperatorCase(name: "then") { d, p in
                waiting(
                    values.then(on: d) {
                        p()
                        return Promise.value($0)
                    })
            })
        cases.append(
            DispatcherOperatorCase(name: "validate") { d, p in
                waiting(
                    values.validate(on: d) { _ in
                        p()
                        return true
                    })
            })
        cases.append(
            DispatcherOperatorCase(name: "mapValues") { d, p in
                waiting(
                    values.mapValues(on: d) {
                        p()
                        return $0
                    })
            })
        cases.append(
            DispatcherOperatorCase(name: "flatMapValues") { d, p in
                waiting(
                    values.flatMapValues(on: d) {
                        p()
                        return [$0]
                    })
            })
        cases.append(
            DispatcherOperatorCase(name: "compactMapValues") { d, p in
                waiting(
                    values.compactMapValues(on: d) {
                        p()
                        return $0
                    })
            })
        cases.append(
            DispatcherOperatorCase(name: "thenMap") { d, p in
                waiting(
                    values.thenMap(on: d) {
                        p()
                        return Promise.value($0)
                    })
            })
        cases.append(
            DispatcherOperatorCase(name: "thenFlatMap") { d, p in
                waiting(
                    values.thenFlatMap(on: d) {
                        p()
                        return Promise.value([$0])
                    })
            })
        cases.append(
            DispatcherOperatorCase(name: "filterValues") { d, p in
                waiting(
                    values.filterValues(on: d) { _ in
                        p()
                        return true
                    })
            })
        cases.append(
            DispatcherOperatorCase(name: "firstValue(where:)") { d, p in
                waiting(
                    values.firstValue(on: d) { _ in
                        p()
                        return true
                    })
            })
        cases.append(
            DispatcherOperatorCase(name: "sortedValues", hasClosure: false) { d, _ in
                waiting(values.sortedValues(on: d))
            })
        return cases.map(\.once)
    }

    private static var catchers: [DispatcherOperatorCase] {
        var cases: [DispatcherOperatorCase] = []
        cases.append(
            DispatcherOperatorCase(name: "catch") { d, p in
                let finished = DispatchSemaphore(value: 0)
                failed.catch(on: d) { _ in p() }.finally(on: nil) { finished.signal() }
                return { finished.wait(timeout: .testTimeout) == .success }
            })
        cases.append(
            DispatcherOperatorCase(name: "recover") { d, p in
                waiting(
                    failed.recover(on: d) { _ in
                        p()
                        return Promise.value(1)
                    })
            })
        cases.append(
            DispatcherOperatorCase(name: "recover to a guarantee") { d, p in
                let recovered: Guarantee<Int> = failed.recover(on: d) { _ in
                    p()
                    return Guarantee.value(1)
                }
                return waiting(recovered)
            })
        cases.append(DispatcherOperatorCase(name: "ensure") { d, p in waiting(failed.ensure(on: d) { p() }) })
        cases.append(
            DispatcherOperatorCase(name: "ensureThen") { d, p in
                waiting(
                    failed.ensureThen(on: d) {
                        p()
                        return Guarantee.value(())
                    })
            })
        cases.append(
            DispatcherOperatorCase(name: "recover Void to a guarantee") { d, p in
                let recovered: Guarantee<Void> = failed.asVoid().recover(on: d) { (_: Error) in p() }
                return waiting(recovered)
            })
        cases.append(
            DispatcherOperatorCase(name: "recover Void with a policy") { d, p in
                waiting(failed.asVoid().recover(on: d, policy: .allErrors) { (_: Error) throws in p() })
            })
        cases.append(
            DispatcherOperatorCase(name: "finally") { d, p in
                let finished = DispatchSemaphore(value: 0)
                failed.catch(on: nil) { _ in }.finally(on: d) {
                    p()
                    finished.signal()
                }
                return { finished.wait(timeout: .testTimeout) == .success }
            })
        return cases.map(\.once)
    }

    private static var guarantees: [DispatcherOperatorCase] {
        var cases: [DispatcherOperatorCase] = []
        cases.append(
            DispatcherOperatorCase(name: "Guarantee.done") { d, p in
                waiting(cached.done(on: d) { _ in p() } as Guarantee<Void>)
            })
        cases.append(
            DispatcherOperatorCase(name: "Guarantee.get") { d, p in
                waiting(cached.get(on: d) { _ in p() } as Guarantee<[Int]>)
            })
        cases.append(
            DispatcherOperatorCase(name: "Guarantee.map") { d, p in
                waiting(
                    cached.map(on: d) {
                        p()
                        return $0
                    } as Guarantee<[Int]>)
            })
        cases.append(
            DispatcherOperatorCase(name: "Guarantee.then") { d, p in
                waiting(
                    cached.then(on: d) {
                        p()
                        return Guarantee.value($0)
                    } as Guarantee<[Int]>)
            })
        cases.append(
            DispatcherOperatorCase(name: "Guarantee.mapValues") { d, p in
                waiting(
                    cached.mapValues(on: d) {
                        p()
                        return $0
                    } as Guarantee)
            })
        cases.append(
            DispatcherOperatorCase(name: "Guarantee.flatMapValues") { d, p in
                waiting(
                    cached.flatMapValues(on: d) {
                        p()
                        return [$0]
                    } as Guarantee)
            })
        cases.append(
            DispatcherOperatorCase(name: "Guarantee.compactMapValues") { d, p in
                waiting(
                    cached.compactMapValues(on: d) {
                        p()
                        return $0
                    } as Guarantee)
            })
        cases.append(
            DispatcherOperatorCase(name: "Guarantee.thenMap") { d, p in
                waiting(
                    cached.thenMap(on: d) {
                        p()
                        return Guarantee.value($0)
                    } as Guarantee)
            })
        cases.append(
            DispatcherOperatorCase(name: "Guarantee.thenFlatMap") { d, p in
                waiting(
                    cached.thenFlatMap(on: d) {
                        p()
                        return Guarantee.value([$0])
                    } as Guarantee)
            })
        cases.append(
            DispatcherOperatorCase(name: "Guarantee.filterValues") { d, p in
                waiting(
                    cached.filterValues(on: d) { _ in
                        p()
                        return true
                    } as Guarantee)
            })
        cases.append(
            DispatcherOperatorCase(name: "Guarantee.sortedValues(_:)") { d, p in
                waiting(
                    cached.sortedValues(on: d) {
                        p()
                        return $0 < $1
                    } as Guarantee)
            })
        cases.append(
            DispatcherOperatorCase(name: "Guarantee.sortedValues(by:)") { d, p in
                waiting(
                    cached.sortedValues(
                        on: d,
                        by: {
                            p()
                            return $0 < $1
                        }) as Guarantee)
            })
        cases.append(
            DispatcherOperatorCase(name: "Guarantee.sortedValues()", hasClosure: false) { d, _ in
                waiting(cached.sortedValues(on: d) as Guarantee)
            })
        return cases.map(\.once)
    }

    /// This case with its probe called once at most, however many elements its closure sees.
    private var once: DispatcherOperatorCase {
        let run = self.run
        return DispatcherOperatorCase(name: name, hasClosure: hasClosure) { dispatcher, probe in
            let called = AtomicCounter()
            return run(dispatcher) { if called.increment() == 1 { probe() } }
        }
    }
}
