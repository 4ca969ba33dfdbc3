import Dispatch
import Pledge
import Testing

/// Operators given a ``Dispatcher`` run their closures through it, once per step that acts on a
/// result; a `DispatchQueue` passed as a dispatcher behaves as the queue form.
@Suite struct DispatcherTests {
    /// Runs a two-step chain on `queue` in which the first closure queues a marker block on
    /// `queue`: each step is a block of its own, so the second runs behind the marker.
    private func order(
        on queue: DispatchQueue, _ chain: (Promise<Int>, @escaping @Sendable (Int) -> Int) -> Promise<Int>
    ) -> [String] {
        let events = Recorder<String>()
        let (head, resolver) = Promise<Int>.pending()
        let tail = chain(head) { value in
            events.append("step \(value)")
            if value == 0 { queue.async { events.append("marker") } }
            return value + 1
        }
        resolver.fulfill(0)
        _ = tail.settledResult()
        queue.drain()
        return events.all
    }

    @Test func aQueuePassedAsAQueueOrAsAnyDispatcherRunsEachStepInABlockOfItsOwn() {
        let queue = TestQueues.serial("dispatcher.queue")
        let erased: any Dispatcher = queue
        let oneBlockEach = ["step 0", "marker", "step 1"]

        #expect(order(on: queue) { head, step in head.map(on: queue, step).map(on: queue, step) } == oneBlockEach)
        #expect(order(on: queue) { head, step in head.map(on: erased, step).map(on: erased, step) } == oneBlockEach)
    }

    @Test func aDispatcherThatNamesItsQueueIsDispatchedToDirectly() throws {
        let dispatcher = QueueNamingDispatcher(TestQueues.serial("dispatcher.namesQueue"))
        let queue = dispatcher.queue
        let ranOnQueue = Recorder<Bool>()

        let result = Promise.value(1).map(on: dispatcher) {
            ranOnQueue.append(TestQueues.isOn(queue))
            return $0 + 1
        }.settledResult()

        #expect(try result?.get() == 2)
        #expect(ranOnQueue.all == [true])
        #expect(dispatcher.dispatches == 0)
        #expect(queue._dispatchQueue === queue)
        #expect(InlineDispatcher()._dispatchQueue == nil)
    }

    @Test func aCustomDispatcherDispatchesEveryActingStepOnce() {
        let dispatcher = CountingDispatcher("dispatcher.count")
        let order = order(on: dispatcher.queue) { head, step in
            head.map(on: dispatcher, step).map(on: dispatcher, step)
        }

        #expect(order == ["step 0", "marker", "step 1"])
        #expect(dispatcher.dispatches == 2)
    }

    @Test func queueFormsStillRunOnTheirQueues() {
        let queue = TestQueues.serial("dispatcher.queueForms")
        let onQueue = Recorder<Bool>()
        let promise = Promise.value(1)
        let guarantee = Guarantee.value(1)
        let results = [
            promise.map(on: queue) {
                onQueue.append(TestQueues.isOn(queue))
                return $0
            }.settledResult(),
            promise.map(on: nil) {
                onQueue.append(!TestQueues.isOn(queue))
                return $0
            }.settledResult(),
            promise.map {
                onQueue.append(TestQueues.isOn(PMKConfiguration.defaultQueue))
                return $0
            }.settledResult(),
            guarantee.map(on: queue) {
                onQueue.append(TestQueues.isOn(queue))
                return $0
            }.settledResult(),
            promise.map(on: .main) { $0 }.result,
        ]

        #expect(results.prefix(4).allSatisfy { $0 != nil })
        #expect(onQueue.all == [true, true, true, true])
    }

    @Test(arguments: DispatcherOperatorCase.all)
    func everyOperatorRunsItsClosureThroughTheDispatcher(_ operatorCase: DispatcherOperatorCase) {
        let dispatcher = CountingDispatcher("dispatcher.\(operatorCase.name)")
        let onQueue = Recorder<Bool>()
        let settled = operatorCase.run(dispatcher) { onQueue.append(TestQueues.isOn(dispatcher.queue)) }

        #expect(settled())
        #expect(dispatcher.dispatches == 1)
        #expect(onQueue.all == (operatorCase.hasClosure ? [true] : []))
    }

    @Test func rejectionsPassFulfilmentOperatorsInlineWithoutDispatching() {
        let dispatcher = CountingDispatcher("dispatcher.inline")
        let failed = Promise<[Int]>(error: TestError.boom)
        let results: [Result<Void, Error>?] = [
            failed.map(on: dispatcher) { _ in }.result,
            failed.compactMap(on: dispatcher) { $0.first }.asVoid().result,
            failed.done(on: dispatcher) { _ in }.result,
            failed.get(on: dispatcher) { _ in }.asVoid().result,
            failed.then(on: dispatcher) { _ in Promise.value(()) }.result,
            failed.validate(on: dispatcher) { _ in true }.asVoid().result,
            failed.mapValues(on: dispatcher) { $0 }.asVoid().result,
            failed.thenMap(on: dispatcher) { Promise.value($0) }.asVoid().result,
            failed.filterValues(on: dispatcher) { _ in true }.asVoid().result,
        ]
        let passed = Promise.value(1)
        let recovered = passed.recover(on: dispatcher) { _ in Promise.value(2) }

        #expect(
            results.allSatisfy { result in
                guard case .failure(let error)? = result else { return false }
                return error as? TestError == .boom
            })
        #expect(recovered.value == 1)
        #expect(dispatcher.dispatches == 0)
    }

    @Test func cancellingADispatcherOperatorCancelsItsInputAndNeverRunsItsClosure() {
        let dispatcher = CountingDispatcher("dispatcher.cancel")
        let ran = AtomicFlag()
        let (head, resolver) = Promise<Int>.pending()
        let mapped = head.map(on: dispatcher) { value in
            ran.set()
            return value
        }
        mapped.cancel()
        resolver.fulfill(1)

        #expect(mapped.error as? PMKError == .cancelled)
        #expect(head.error as? PMKError == .cancelled)
        #expect(dispatcher.dispatches == 0)
        #expect(!ran.isSet)
    }

    @Test func anOperatorCancelledAfterItsDispatchNeverRunsItsClosure() {
        let dispatcher = ManualDispatcher()
        let ran = AtomicFlag()
        let (head, resolver) = Promise<Int>.pending()
        let mapped = head.map(on: dispatcher) { value in
            ran.set()
            return value
        }
        resolver.fulfill(1)
        #expect(dispatcher.pending == 1)
        mapped.cancel()
        dispatcher.runAll()

        #expect(mapped.error as? PMKError == .cancelled)
        #expect(head.value == 1)
        #expect(!ran.isSet)
    }

    @Test func aMillionStepChainOnADispatcherDoesNotGrowTheStack() {
        let dispatcher = InlineDispatcher()
        let (head, resolver) = Promise<Int>.pending()
        var tail = head
        for _ in 0..<1_000_000 { tail = tail.map(on: dispatcher) { $0 + 1 } }

        #expect(onASmallStack { resolver.fulfill(0) })

        #expect(tail.value == 1_000_000)
    }
}

/// A dispatcher that says it is `queue`: operators dispatch there directly and never call
/// `dispatch(_:)`, which counts its calls.
private final class QueueNamingDispatcher: Dispatcher {
    let queue: DispatchQueue
    private let calls = Recorder<Int>()

    init(_ queue: DispatchQueue) { self.queue = queue }

    var dispatches: Int { calls.all.count }
    var _dispatchQueue: DispatchQueue? { queue }

    func dispatch(_ body: @escaping @Sendable () -> Void) {
        calls.append(1)
        queue.async(execute: body)
    }
}
