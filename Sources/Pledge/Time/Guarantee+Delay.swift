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
            return delayedGuarantee(.nanoseconds(0))
        }
        return delayedGuarantee(span)
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
        delayedGuarantee(TimerSpan(interval))
    }

    /// The one implementation of the guarantee form of `delay`: an `after` started on fulfilment.
    private func delayedGuarantee(_ span: TimerSpan) -> Guarantee<T> {
        then(on: nil) { value in
            _after(.now() + span.interval).map(on: nil) { value }
        }
    }
}
