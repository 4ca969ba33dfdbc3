import Foundation
import Pledge

extension NotificationCenter {
    /// Returns a guarantee of the next notification named `name`, as a ``NotificationSnapshot``.
    ///
    /// The observer is added at once and removed as soon as the first matching notification
    /// arrives; later posts are ignored. The guarantee resolves on the thread that posts the
    /// notification, before `post` returns. A guarantee cannot be cancelled, so until a
    /// notification comes the observer stays (and keeps the guarantee's handlers); when you may
    /// stop waiting, take the `Promise` form of this method (annotate the result as a promise)
    /// and cancel it.
    ///
    /// `Notification` is not `Sendable`, so the value is a snapshot rather than the
    /// notification itself (see ``NotificationSnapshot``); `observe(once:object:_:)` hands the
    /// notification to a closure instead.
    ///
    /// ```swift
    /// NotificationCenter.default.observe(once: .configurationDidChange).done { snapshot in
    ///     reload(reason: snapshot.userInfo["reason"])
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - name: The notification's name.
    ///   - object: The sender to observe, or `nil` for any sender. Pass an object (a class
    ///     instance): Foundation compares senders by identity, and on Linux a value such as a
    ///     string or a number never matches, not even an equal one, so nothing would arrive.
    /// - Returns: A guarantee of the first notification's snapshot.
    public func observe(once name: Notification.Name, object: Any? = nil) -> Guarantee<NotificationSnapshot> {
        observe(once: name, object: object) { NotificationSnapshot($0) }
    }

    /// Returns a guarantee of what `transform` makes of the next notification named `name`.
    ///
    /// `transform` runs once, on the thread that posts the first matching notification, before
    /// `post` returns, and the guarantee resolves there with its value. The observer is removed
    /// before `transform` runs; later posts are ignored. Use it to keep values of the user info
    /// that are `Sendable`, which ``NotificationSnapshot`` only renders as text.
    ///
    /// ```swift
    /// NotificationCenter.default.observe(once: .downloadDidFinish) { notification in
    ///     notification.userInfo?["bytes"] as? Int ?? 0
    /// }.done { bytes in
    ///     print("downloaded \(bytes) bytes")
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - name: The notification's name.
    ///   - object: The sender to observe, or `nil` for any sender.
    ///   - transform: Makes the guarantee's value from the notification.
    /// - Returns: A guarantee of `transform`'s value.
    public func observe<T: Sendable>(
        once name: Notification.Name, object: Any? = nil,
        _ transform: @escaping @Sendable (Notification) -> T
    ) -> Guarantee<T> {
        let (guarantee, resolve) = Guarantee<T>.pending()
        _ = OnceObservation.start(on: self, name: name, object: object) { notification in
            resolve(transform(notification))
        }
        return guarantee
    }

    /// Returns a promise of the next notification named `name`, as a ``NotificationSnapshot``,
    /// that can be cancelled.
    ///
    /// As the guarantee form, ``observe(once:object:)-(_,_)->Guarantee<NotificationSnapshot>``,
    /// with one difference: cancelling the promise removes the observer (and rejects the
    /// promise with `PMKError.cancelled`). Annotate the result as a `Promise` to pick this form.
    ///
    /// ```swift
    /// let ready: Promise<NotificationSnapshot> = NotificationCenter.default.observe(once: .serverReady)
    /// ready.timeout(seconds: 30).done { _ in start() }.catch { _ in giveUp() }
    /// ```
    ///
    /// - Parameters:
    ///   - name: The notification's name.
    ///   - object: The sender to observe, or `nil` for any sender.
    /// - Returns: A promise of the first notification's snapshot.
    @_disfavoredOverload
    public func observe(once name: Notification.Name, object: Any? = nil) -> Promise<NotificationSnapshot> {
        Promise { seal in
            let observation = OnceObservation.start(on: self, name: name, object: object) { notification in
                seal.fulfill(NotificationSnapshot(notification))
            }
            seal.onCancel { observation.cancel() }
        }
    }
}

/// One observer that delivers the first matching notification, then removes itself.
///
/// A notification can arrive on another thread before `addObserver` has returned the token to
/// remove, so the token is handed over through a small state under a lock; whoever finishes
/// second removes the observer. The delivery runs outside the lock.
final class OnceObservation: Sendable {
    private enum State {
        /// `addObserver` has not returned yet.
        case registering
        /// Observing; the token removes the observer.
        case registered(NSObjectProtocol)
        /// Fired or cancelled before `addObserver` returned: the token is removed when it does.
        case finishedWhileRegistering
        /// Fired or cancelled, and the observer removed or about to be.
        case finished
    }

    // Safety of the non-`Sendable` token in `state`: it is an opaque object NotificationCenter
    // returned, only ever passed back to `removeObserver(_:)`, which is safe from any thread.
    private let state = LockedState(State.registering)
    private let center: NotificationCenter

    private init(center: NotificationCenter) {
        self.center = center
    }

    /// Adds the observer; `deliver` runs at most once, for the first matching notification.
    static func start(
        on center: NotificationCenter, name: Notification.Name, object: Any?,
        deliver: @escaping @Sendable (Notification) -> Void
    ) -> OnceObservation {
        let observation = OnceObservation(center: center)
        let token = center.addObserver(forName: name, object: object, queue: nil) { notification in
            guard observation.finish() else { return }
            deliver(notification)
        }
        let removeNow = observation.state.withLock { state -> Bool in
            switch state {
            case .registering:
                state = .registered(token)
                return false
            case .finishedWhileRegistering, .registered, .finished:
                state = .finished
                return true
            }
        }
        if removeNow { center.removeObserver(token) }
        return observation
    }

    /// Stops observing without delivering.
    func cancel() {
        _ = finish()
    }

    /// Moves to finished and removes the observer; `true` for the first caller only.
    private func finish() -> Bool {
        let (first, token) = state.withLock { state -> (Bool, NSObjectProtocol?) in
            switch state {
            case .registering:
                state = .finishedWhileRegistering
                return (true, nil)
            case .registered(let token):
                state = .finished
                return (true, token)
            case .finishedWhileRegistering, .finished:
                return (false, nil)
            }
        }
        if let token { center.removeObserver(token) }
        return first
    }
}
