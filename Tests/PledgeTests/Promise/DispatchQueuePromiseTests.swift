import Dispatch
import Pledge
import Testing

@Suite struct DispatchQueuePromiseTests {
    private static let key = DispatchSpecificKey<String>()

    private func queue(_ name: String, attributes: DispatchQueue.Attributes = []) -> DispatchQueue {
        let queue = DispatchQueue(label: "dispatch-promise.\(name)", attributes: attributes)
        queue.setSpecific(key: Self.key, value: name)
        return queue
    }

    @Test func aThrowingBodyGivesAPromiseOfItsValue() {
        let promise = DispatchQueue.global().async(.promise) { () throws -> Int in 42 }

        #expect(comboStaticType(promise) == "Promise<Int>")
        #expect(promise.comboValue() == 42)
    }

    @Test func aThrowingBodyRejectsThePromiseWithItsError() {
        let promise = DispatchQueue.global().async(.promise) { () throws -> Int in throw ComboError.boom }

        #expect(promise.comboError() as? ComboError == .boom)
    }

    @Test func aNonThrowingBodyGivesAGuarantee() {
        let guarantee = DispatchQueue.global().async(.promise) { 7 }

        #expect(comboStaticType(guarantee) == "Guarantee<Int>")
        #expect(guarantee.comboValue() == 7)
    }

    @Test func theBodyRunsOnTheQueue() {
        let target = queue("target")

        let throwing = target.async(.promise) { () throws -> String? in
            DispatchQueue.getSpecific(key: Self.key)
        }
        let plain = target.async(.promise) { DispatchQueue.getSpecific(key: Self.key) }

        #expect(throwing.comboValue() == "target")
        #expect(plain.comboValue() == "target")
    }

    @Test func theWorkJoinsTheGroup() {
        let group = DispatchGroup()
        let target = queue("group")
        target.suspend()

        let work = target.async(.promise, group: group) { () throws -> Int in 1 }
        let other = target.async(.promise, group: group, qos: .utility) { 2 }

        #expect(group.wait(timeout: .now() + 0.01) == .timedOut)
        target.resume()
        #expect(group.wait(timeout: .now() + comboTimeout) == .success)
        #expect(work.value == 1)
        #expect(other.value == 2)
    }

    @Test func flagsArePassedOn() {
        // A barrier on a concurrent queue waits for the work submitted before it.
        let target = queue("barrier", attributes: .concurrent)
        let gate = DispatchSemaphore(value: 0)
        let earlier = target.async(.promise) { () -> Int in
            gate.wait()
            return 1
        }

        let barrier = target.async(.promise, flags: .barrier) { earlier.value }
        gate.signal()

        #expect(barrier.comboValue() == 1)
    }
}
