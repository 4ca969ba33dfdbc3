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
/// - Parameter seconds: The delay, in seconds (PromiseKit's `TimeInterval`).
/// - Returns: A guarantee that resolves once the delay has passed.
public func after(seconds: Double) -> Guarantee<Void> {
    guard !seconds.isNaN else {
        conf.log(.badInput("after(seconds: nan) resolves without waiting"))
        return _after(.now())
    }
    return _after(.now() + seconds)
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
/// - Parameter interval: The delay.
/// - Returns: A guarantee that resolves once the delay has passed.
public func after(_ interval: DispatchTimeInterval) -> Guarantee<Void> {
    _after(.now() + interval)
}

/// A guarantee sealed by a timer at `deadline`; the timer holds the box until then.
func _after(_ deadline: DispatchTime) -> Guarantee<Void> {
    let box = EmptyBox<Result<Void, Error>>()
    DispatchQueue.global().asyncAfter(deadline: deadline) {
        box.resolve(.success(()))
    }
    return Guarantee(box: box)
}
