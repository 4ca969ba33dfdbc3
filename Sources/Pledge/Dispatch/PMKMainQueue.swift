/// The main queue, as the `on:` of an operator whose closure is isolated to the main actor.
///
/// Written `on: .main`, it picks the operator's main-actor form: the closure runs in a block on
/// the main queue (or, while the main thread waits in `wait()`, there), and the compiler knows
/// that it runs on the main actor, so it may touch main-actor state, from any context.
///
/// ```swift
/// @MainActor final class ProfileModel {
///     var name = ""
///     func load() {
///         fetchUser().done(on: .main) { self.name = $0.name }.catch(on: .main) { _ in self.name = "?" }
///     }
/// }
/// ```
///
/// On Linux, the main queue runs only when something drains it: `dispatchMain()`, a run loop, or
/// an app's event loop.
public struct PMKMainQueue: Sendable {
    @inlinable
    init() {}

    /// The main queue.
    @inlinable
    public static var main: PMKMainQueue { PMKMainQueue() }
}
