import Foundation
import Pledge
import PledgeFoundation
import Testing

/// `NotificationCenter.observe(once:object:)`, each test on a center of its own.
@Suite struct FoundationNotificationTests {
    private let name = Notification.Name("FoundationNotificationTests.event")

    /// An object whose release a test can see.
    private final class Tracker: Sendable {}

    @Test func theGuaranteeResolvesWithTheFirstNotificationOnly() throws {
        let center = NotificationCenter()
        let guarantee = center.observe(once: name)
        #expect(guarantee.result == nil)
        center.post(name: name, object: nil, userInfo: ["attempt": 1])
        center.post(name: name, object: nil, userInfo: ["attempt": 2])
        let snapshot = try #require(guarantee.result?.successValue)
        #expect(snapshot.name == name)
        #expect(snapshot.userInfo == ["attempt": "1"])
        #expect(snapshot.objectDescription == nil)
        #expect("\(snapshot)" == "Notification(FoundationNotificationTests.event, userInfo: [attempt: 1])")
    }

    @Test func theObserverIsRemovedAfterTheFirstNotification() throws {
        let center = NotificationCenter()
        let calls = Locked(0)
        weak var released: Tracker?
        let guarantee: Guarantee<Int>
        do {
            let tracker = Tracker()
            released = tracker
            guarantee = center.observe(once: name) { notification in
                _ = tracker
                return calls.mutate { count in
                    count += 1
                    return count
                }
            }
        }
        #expect(released != nil)  // the center's observer holds the closure
        center.post(name: name, object: nil)
        center.post(name: name, object: nil)
        #expect(guarantee.result?.successValue == 1)
        #expect(calls.value == 1)
        #expect(released == nil)  // the center let go of the observer
    }

    @Test func anObserverOfOneSenderIgnoresOthers() throws {
        let center = NotificationCenter()
        let sender = NSObject()
        let guarantee = center.observe(once: name, object: sender)
        center.post(name: name, object: NSObject())
        #expect(guarantee.result == nil)
        center.post(name: name, object: sender)
        #expect(guarantee.result?.successValue?.objectDescription != nil)
    }

    @Test func theTransformKeepsTypedValuesOfTheUserInfo() throws {
        let center = NotificationCenter()
        let bytes = center.observe(once: name) { $0.userInfo?["bytes"] as? Int ?? -1 }
        center.post(name: name, object: nil, userInfo: ["bytes": 42])
        #expect(bytes.result?.successValue == 42)
    }

    @Test func thePromiseFormRemovesItsObserverWhenCancelled() throws {
        let center = NotificationCenter()
        let promise: Promise<NotificationSnapshot> = center.observe(once: name)
        promise.cancel()
        #expect(promise.isCancelled)
        center.post(name: name, object: nil)
        #expect(promise.error as? PMKError == .cancelled)
    }

    @Test func thePromiseFormFulfilsWithTheFirstNotification() throws {
        let center = NotificationCenter()
        let promise: Promise<NotificationSnapshot> = center.observe(once: name)
        center.post(name: name, object: nil)
        #expect(promise.result?.successValue?.name == name)
    }
}
