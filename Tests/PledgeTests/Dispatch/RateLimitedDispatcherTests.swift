import Dispatch
import Testing

// `dispatch(_:orDrop:)`, which Pledge's operators call to hear about dropped work, is internal.
@testable import Pledge

@Suite struct RateLimitedDispatcherTests {
    /// Dispatches `count` bodies from this thread and returns, sorted, the uptime in
    /// nanoseconds at which each one started, read first thing in the body.
    static func startTimes(of count: Int, on dispatcher: RateLimitedDispatcher) -> [UInt64]? {
        let starts = RendezvousCounters(count: count)
        let done = CompletionCount(expecting: count)
        for index in 0..<count {
            dispatcher.dispatch {
                starts.add(Int(DispatchTime.now().uptimeNanoseconds), at: index)
                done.complete()
            }
        }
        guard done.wait() else { return nil }
        return (0..<count).map { UInt64(starts[$0]) }.sorted()
    }

    /// The start times that begin a window of `length` nanoseconds holding more than `limit`
    /// starts; `times` is sorted.
    static func crowdedWindows(_ times: [UInt64], limit: Int, length: UInt64) -> [UInt64] {
        guard times.count > limit else { return [] }
        return (0..<(times.count - limit)).filter { times[$0 + limit] - times[$0] < length }.map { times[$0] }
    }

    @Test func noWindowHoldsMoreStartsThanTheLimitAndTheRunTakesAtLeastItsLowerBound() throws {
        let dispatcher = RateLimitedDispatcher(
            maxDispatches: 5, perInterval: .milliseconds(100), queue: TestQueues.concurrent("rate.window"))
        let before = DispatchTime.now().uptimeNanoseconds

        let times = try #require(Self.startTimes(of: 30, on: dispatcher))

        #expect(Self.crowdedWindows(times, limit: 5, length: 100_000_000).isEmpty)
        // Thirty starts, five per window: the last five cannot start before five full windows.
        #expect(try #require(times.last) - before >= 500_000_000)
        #expect(try #require(times.first) >= before)
    }

    @Test func startsBodiesOnItsQueueInDispatchOrder() {
        let queue = TestQueues.serial("rate.order")
        let dispatcher = RateLimitedDispatcher(maxDispatches: 4, perInterval: .milliseconds(20), queue: queue)
        let runs = Recorder<(index: Int, onQueue: Bool)>()
        let done = CompletionCount(expecting: 12)

        for index in 0..<12 {
            dispatcher.dispatch {
                runs.append((index, TestQueues.isOn(queue)))
                done.complete()
            }
        }

        #expect(done.wait())
        #expect(runs.all.map(\.index) == Array(0..<12))
        #expect(runs.all.allSatisfy { $0.onQueue })
    }

    @Test(arguments: [0, -5])
    func aLimitBelowOneStartsOneBodyPerInterval(maxDispatches: Int) throws {
        let dispatcher = RateLimitedDispatcher(
            maxDispatches: maxDispatches, perInterval: .milliseconds(50), queue: TestQueues.concurrent("rate.clamp"))

        let times = try #require(Self.startTimes(of: 4, on: dispatcher))

        #expect(Self.crowdedWindows(times, limit: 1, length: 50_000_000).isEmpty)
        #expect(times[3] - times[0] >= 150_000_000)
    }

    @Test(arguments: [DispatchTimeInterval.nanoseconds(0), .seconds(0), .milliseconds(-5), .seconds(Int.min)])
    func aZeroOrNegativeIntervalStartsEveryBodyInOrderWithoutWaiting(interval: DispatchTimeInterval) {
        let queue = TestQueues.serial("rate.unlimited")
        let dispatcher = RateLimitedDispatcher(maxDispatches: 1, perInterval: interval, queue: queue)
        let order = Recorder<Int>()
        let done = CompletionCount(expecting: 200)

        for index in 0..<200 {
            dispatcher.dispatch {
                order.append(index)
                done.complete()
            }
        }

        #expect(done.wait())
        #expect(order.all == Array(0..<200))
    }

    @Test(arguments: [DispatchTimeInterval.never, .seconds(Int.max)])
    func aNeverEndingWindowStartsTheLimitOnceAndDropsTheRestAtOnce(interval: DispatchTimeInterval) {
        let queue = TestQueues.serial("rate.never")
        let dispatcher = RateLimitedDispatcher(maxDispatches: 3, perInterval: interval, queue: queue)
        let ran = Recorder<Int>()
        let dropped = Recorder<Int>()

        for index in 0..<5 {
            dispatcher.dispatch({ ran.append(index) }, orDrop: { dropped.append(index) })
        }
        // Every place is taken for good: the drops were reported before `dispatch` returned.
        #expect(dropped.all == [3, 4])
        dispatcher.dispatch { ran.append(5) }
        queue.drain()

        #expect(ran.all == [0, 1, 2])
        #expect(dropped.all == [3, 4])
    }

    @Test func aFiniteWindowNeverDropsWork() {
        let queue = TestQueues.serial("rate.noDrops")
        let dispatcher = RateLimitedDispatcher(maxDispatches: 2, perInterval: .milliseconds(10), queue: queue)
        let dropped = AtomicCounter()
        let done = CompletionCount(expecting: 6)

        for _ in 0..<6 {
            dispatcher.dispatch({ done.complete() }, orDrop: { dropped.increment() })
        }

        #expect(done.wait())
        #expect(dropped.value == 0)
    }
}
