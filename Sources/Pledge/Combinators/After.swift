import Dispatch

/// Returns a guarantee that resolves after `seconds` have passed.
///
/// The timer runs on a global queue (default quality of service), where the guarantee resolves;
/// handlers with `on: nil` run there, others on their own queue. It never resolves early; zero or
/// a negative delay resolves promptly, but still asynchronously. An infinite delay, or one too
/// large to represent, never resolves and keeps nothing alive. A delay that is not a number
/// counts as zero, and Pledge logs ``LogEvent/badInput(_:)``. The timer keeps the guarantee's
/// storage alive until it fires, so dropping the guarantee (say, as the loser of a
/// ``race(_:file:line:)-(Guarantee<T>...,_,_)``) is fine and logs nothing.
///
/// ```swift
/// after(seconds: 0.5).done { print("half a second later") }
/// ```
///
/// - Parameters:
///   - seconds: The delay, in seconds (PromiseKit's `TimeInterval`).
///   - file: Where the guarantee was made, for ``pendingPromises()`` in debug builds (see
///     ``CreationSite``); leave it out.
///   - line: The line that goes with `file`; leave it out.
/// - Returns: A guarantee that resolves once the delay has passed.
public func after(seconds: Double, file: StaticString = #fileID, line: UInt = #line) -> Guarantee<Void> {
    guard !seconds.isNaN else {
        conf.log(.badInput("after(seconds: nan) resolves without waiting"))
        return _after(.now(), file: file, line: line)
    }
    return _after(.now() + seconds, file: file, line: line)
}

/// Returns a guarantee that resolves after `interval` has passed.
///
/// The timer runs on a global queue (default quality of service), where the guarantee resolves.
/// It never resolves early; a zero or negative interval resolves promptly, but still
/// asynchronously, and `.never` never resolves. Dropping the guarantee before it fires logs
/// nothing.
///
/// ```swift
/// after(.milliseconds(250)).done { retry() }
/// ```
///
/// - Parameters:
///   - interval: The delay.
///   - file: Where the guarantee was made, for ``pendingPromises()`` in debug builds (see
///     ``CreationSite``); leave it out.
///   - line: The line that goes with `file`; leave it out.
/// - Returns: A guarantee that resolves once the delay has passed.
public func after(
    _ interval: DispatchTimeInterval, file: StaticString = #fileID, line: UInt = #line
) -> Guarantee<Void> {
    _after(.now() + interval, file: file, line: line)
}

/// Returns a guarantee that resolves after `duration` has passed.
///
/// Works as ``after(seconds:file:line:)`` does, on the same timer; a negative duration resolves promptly,
/// but still asynchronously.
///
/// ```swift
/// after(for: .milliseconds(250)).done { retry() }
/// ```
///
/// - Parameters:
///   - duration: The delay.
///   - file: Where the guarantee was made, for ``pendingPromises()`` in debug builds (see
///     ``CreationSite``); leave it out.
///   - line: The line that goes with `file`; leave it out.
/// - Returns: A guarantee that resolves once the delay has passed.
public func after(for duration: Duration, file: StaticString = #fileID, line: UInt = #line) -> Guarantee<Void> {
    Waiter.dispatch.after(TimerSpan(duration), file: file, line: line)
}

/// Returns a guarantee that resolves once `clock` has moved `duration` past its time now.
///
/// On a `ContinuousClock` the wait is the timer of ``after(for:file:line:)``; on any other clock, a task
/// asleep until the deadline (`clock.sleep(until:tolerance:)`), where the guarantee resolves. It
/// never resolves before the clock reaches the deadline, and a clock a test advances by hand
/// resolves it as soon as the test moves it there. A negative duration counts as zero.
///
/// ```swift
/// after(for: .seconds(30), clock: SuspendingClock()).done { refresh() }
/// ```
///
/// - Parameters:
///   - duration: The delay.
///   - clock: The clock that measures it.
///   - file: Where the guarantee was made, for ``pendingPromises()`` in debug builds (see
///     ``CreationSite``); leave it out.
///   - line: The line that goes with `file`; leave it out.
/// - Returns: A guarantee that resolves once the delay has passed on `clock`.
public func after(
    for duration: Duration, clock: some Clock<Duration>, file: StaticString = #fileID, line: UInt = #line
) -> Guarantee<Void> {
    Waiter(clock).after(TimerSpan(duration), file: file, line: line)
}

/// A guarantee sealed by a timer at `deadline`; the timer holds the box until then.
func _after(_ deadline: DispatchTime, file: StaticString, line: UInt) -> Guarantee<Void> {
    let box = EmptyBox<Result<Void, Error>>(site: (file, line))
    DispatchQueue.global().asyncAfter(deadline: deadline) {
        box.resolve(.success(()))
    }
    return Guarantee(box: box)
}
