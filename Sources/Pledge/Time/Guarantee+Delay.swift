import Dispatch

extension Guarantee {
    /// Passes the value on `seconds` after this guarantee has it.
    ///
    /// The wait starts when this guarantee gets its value, on a global queue (default quality of
    /// service), where the result gets it. It never arrives early; zero or a negative time passes
    /// it on promptly, but still asynchronously, and infinity (or a time too long to represent)
    /// never passes it on. A time that is not a number counts as zero, and Pledge logs
    /// ``LogEvent/badInput(_:)``. A guarantee cannot be cancelled; for a cancellable wait, use
    /// the promise form, ``Thenable/delay(seconds:)``.
    ///
    /// ```swift
    /// Guarantee.value("ready").delay(seconds: 1).done { print($0) }   // a second later
    /// ```
    ///
    /// - Parameter seconds: How long to hold the value, in seconds.
    /// - Returns: A guarantee of the same value, resolved that much later.
    public func delay(seconds: Double) -> Guarantee<T> {
        guard let span = TimerSpan(seconds: seconds) else {
            conf.log(.badInput("delay(seconds: nan) on a guarantee passes the value on without waiting"))
            return delayedGuarantee(.nanoseconds(0), on: .dispatch)
        }
        return delayedGuarantee(span, on: .dispatch)
    }

    /// Passes the value on `interval` after this guarantee has it.
    ///
    /// Works as ``delay(seconds:)`` does; `.never` never passes the value on.
    ///
    /// ```swift
    /// after(seconds: 1).map { "tick" }.delay(.milliseconds(500)).done { print($0) }
    /// ```
    ///
    /// - Parameter interval: How long to hold the value.
    /// - Returns: A guarantee of the same value, resolved that much later.
    public func delay(_ interval: DispatchTimeInterval) -> Guarantee<T> {
        delayedGuarantee(TimerSpan(interval), on: .dispatch)
    }

    /// Passes the value on `duration` after this guarantee has it.
    ///
    /// Works as ``delay(seconds:)`` does, on the same timers; a negative duration counts as zero.
    ///
    /// ```swift
    /// Guarantee.value("ready").delay(for: .seconds(1)).done { print($0) }
    /// ```
    ///
    /// - Parameter duration: How long to hold the value.
    /// - Returns: A guarantee of the same value, resolved that much later.
    public func delay(for duration: Duration) -> Guarantee<T> {
        delayedGuarantee(TimerSpan(duration), on: .dispatch)
    }

    /// Passes the value on `duration` on `clock` after this guarantee has it.
    ///
    /// The wait starts when this guarantee gets its value: on a `ContinuousClock` it is the timer
    /// of ``delay(for:)``; on any other clock, a task asleep until `duration` after `clock.now`,
    /// where the result gets the value. A negative duration counts as zero.
    ///
    /// ```swift
    /// Guarantee.value("ready").delay(for: .seconds(1), clock: SuspendingClock()).done { print($0) }
    /// ```
    ///
    /// - Parameters:
    ///   - duration: How long to hold the value.
    ///   - clock: The clock that measures it.
    /// - Returns: A guarantee of the same value, resolved that much later.
    public func delay(for duration: Duration, clock: some Clock<Duration>) -> Guarantee<T> {
        delayedGuarantee(TimerSpan(duration), on: Waiter(clock))
    }

    /// The one implementation of the guarantee form of `delay`: an `after` started on fulfilment.
    private func delayedGuarantee(_ span: TimerSpan, on waiter: Waiter) -> Guarantee<T> {
        then(on: nil) { value in
            waiter.after(span).map(on: nil) { value }
        }
    }
}
