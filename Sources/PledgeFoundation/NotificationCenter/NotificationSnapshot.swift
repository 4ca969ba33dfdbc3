import Foundation

/// What `NotificationCenter.observe(once:object:)` delivers: a notification's name and a
/// `Sendable` rendering of its object and user info.
///
/// `Notification` is not `Sendable` (its object and user info may be any value: in the toolchain's
/// Foundation on Linux the conformance is explicitly unavailable), so a `Guarantee<Notification>`
/// does not compile in Swift 6 language mode, where PromiseKit's returns one. The snapshot keeps
/// the name and renders the rest with `String(describing:)`. To keep typed values from the user
/// info, use `observe(once:object:_:)`, whose closure receives the notification itself.
///
/// ```swift
/// NotificationCenter.default.observe(once: .configurationDidChange).done { snapshot in
///     print(snapshot.name.rawValue, snapshot.userInfo["reason"] ?? "")
/// }
/// ```
public struct NotificationSnapshot: Sendable, Hashable {
    /// The notification's name.
    public let name: Notification.Name

    /// `String(describing:)` of the notification's object, or `nil` when it had none.
    public let objectDescription: String?

    /// The notification's user info, each key and value rendered with `String(describing:)`;
    /// empty when it had none.
    public let userInfo: [String: String]

    /// Takes a snapshot of `notification`.
    ///
    /// - Parameter notification: The notification to render.
    public init(_ notification: Notification) {
        name = notification.name
        objectDescription = notification.object.map { String(describing: $0) }
        var userInfo: [String: String] = [:]
        for (key, value) in notification.userInfo ?? [:] {
            userInfo[String(describing: key.base)] = String(describing: value)
        }
        self.userInfo = userInfo
    }
}

extension NotificationSnapshot: CustomStringConvertible {
    /// The name, and the object and user info when there are any.
    public var description: String {
        var text = "Notification(\(name.rawValue)"
        if let objectDescription { text += ", object: \(objectDescription)" }
        if !userInfo.isEmpty {
            let pairs = userInfo.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
            text += ", userInfo: [\(pairs.joined(separator: ", "))]"
        }
        return text + ")"
    }
}
