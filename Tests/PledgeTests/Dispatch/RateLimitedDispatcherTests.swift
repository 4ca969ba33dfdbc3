import Dispatch
import Testing

// `dispatch(_:orDrop:)`, which Pledge's operators call to hear about dropped work, is internal.
@testable import Pledge

@Suite struct RateLimitedDispatcherTests {
    /// The start times of bodies, in uptime nanoseconds: as the dispatcher recorded them (the
    /// instant it defines as the start), and as each body read the clock first thing.
    struct Starts {
        /// Sorted.
        var recorded: [UInt64]
        /// By body, in dispatch order.
        var seenByBodies: [UInt64]
    }

    /// Makes a dispatcher on a concurrent queue, dispatches `count` bodies to it from this
    /// thread and returns when they started, or `nil` if they did not all start in time.
    static func starts(
        of count: Int, maxDispatches: Int, perInterval: DispatchTimeInterval, queue: String
    ) -> Starts? {
        let recorded = Recorder<UInt64>()
        let dispatcher = RateLimitedDispatcher(
            maxDispatches: maxDispatches, perInterval: perInterval, queue: TestQueues.concurrent(queue),
            startObserver: { recorded.append($0) })
        let seen = RendezvousCounters(count: count)
        let done = CompletionCount(expecting: count)
        for index in 0..<count {
            dispatcher.dispatch {
                seen.add(Int(DispatchTime.now().uptimeNanoseconds), at: index)
                done.complete()
            }
        }
        guard done.wait() else { return nil }
        return Starts(recorded: recorded.all.sorted(), seenByBodies: (0..<count).map { UInt64(seen[$0]) })
    }

    /// The start times that begin a window of `length` nanoseconds holding more than `limit`
    /// starts; `times` is sorted.
    static func crowdedWindows(_ times: [UInt64], limit: Int, length: UInt64) -> [UInt64] {
        guard times.count > limit else { return [] }
        return (0..<(times.count - limit)).filter { times[$0 + limit] - times[$0] < length }.map { times[$0] }
    }

    @Test func noWindowHoldsMoreStartsThanTheLimitAndTheRunTakesAtLeastItsLowerBound() throws {
        let before = DispatchTime.now().uptimeNanoseconds

        let starts = try #require(
            Self.starts(of: 30, maxDispatches: 5, perInterval: .milliseconds(100), queue: "rate.window"))

        // The recorded starts are exact; a body reads the clock a little later, by however long
        // its thread was preempted in between, so windows are checked on the recorded times.
        #expect(starts.recorded.count == 30)
        #expect(Self.crowdedWindows(starts.recorded, limit: 5, length: 100_000_000).isEmpty)
        #expect(try #require(starts.recorded.first) >= before)
        // Thirty starts, five per window: the last five cannot start before five full windows.
        #expect(try #require(starts.seenByBodies.max()) - before >= 500_000_000)
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
        let before = DispatchTime.now().uptimeNanoseconds

        let starts = try #require(
            Self.starts(of: 4, maxDispatches: maxDispatches, perInterval: .milliseconds(50), queue: "rate.clamp"))

        #expect(Self.crowdedWindows(starts.recorded, limit: 1, length: 50_000_000).isEmpty)
        #expect(try #require(starts.seenByBodies.max()) - before >= 150_000_000)
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
