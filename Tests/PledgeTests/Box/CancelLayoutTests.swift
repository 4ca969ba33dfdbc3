import Pledge
import Testing

/// Cancelling writes `PMKError.cancelled` into the first word of a pending box's placeholder
/// value, and keeps the box's upstream link there while pending: both rely on `any Error` being
/// one reference and on a `Result`'s failure payload starting its storage, for every value type.
@Suite struct CancelLayoutTests {
    private struct ThreeWords: Equatable { var a = 1, b = 2, c = 3 }
    private enum Small: Equatable { case one, two }

    @Test func anErrorIsOneReference() {
        #expect(MemoryLayout<any Error>.size == MemoryLayout<UnsafeRawPointer>.size)
    }

    private func cancelsCleanly<T: Sendable>(_: T.Type) {
        // A link: the end depends on the head, so the end's placeholder holds a link first.
        let (head, _) = Promise<T>.pending()
        let end = head.map(on: nil) { $0 }
        end.cancel()
        #expect(end.error as? PMKError == .cancelled, "\(T.self)")
        #expect(head.error as? PMKError == .cancelled, "\(T.self)")
    }

    @Test func aCancelledBoxOfAnyLayoutHoldsTheCancellation() {
        cancelsCleanly(Void.self)
        cancelsCleanly(Bool.self)
        cancelsCleanly(Small.self)
        cancelsCleanly(Int.self)
        cancelsCleanly(Int?.self)
        cancelsCleanly(String.self)
        cancelsCleanly(ThreeWords.self)
        cancelsCleanly([Int].self)
        cancelsCleanly((Int, String, Bool).self)
        cancelsCleanly(Result<Int, Error>.self)
        cancelsCleanly(Promise<Int>.self)
    }
}
