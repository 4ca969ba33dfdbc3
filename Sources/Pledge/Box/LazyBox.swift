/// The box of a lazy promise or guarantee (see ``Promise/lazy(_:file:line:)``): it starts
/// ``EmptyBox/State/unstarted``, holding the body that resolves it until the first handler is
/// attached.
///
/// The first attachment moves the box to `pending` under the lock and tells its caller to start
/// the body (``Attachment/start``) once every lock is dropped; a cancellation that comes first
/// seals it instead, and the body is released unrun (``EmptyBox/dropProducer()``), as it is with
/// a box nothing attaches to (no resolver was made, so nothing logs); through
/// ``ThreadRun/release(_:)``, since it may own the rest of a chain of lazy promises.
final class LazyBox<T: Sendable>: EmptyBox<Result<T, Error>>, @unchecked Sendable {
    // Safety: under the lock, like every stored property of a box (see `EmptyBox`). The body is
    // taken out by the one thread that moved the box out of `unstarted`.
    @exclusivity(unchecked)
    private var body: (@Sendable (LazyBox<T>) -> Void)?

    /// Makes a box that calls `body` with itself on its first attachment.
    init(_ body: @escaping @Sendable (LazyBox<T>) -> Void) {
        self.body = body
        super.init(unstarted: ())
    }

    deinit {
        if let body = body.take() { ThreadRun.release(consume body) }  // moved: no reference stays here
    }

    override func startBody() {
        lock.lock()
        let body = body.take()
        lock.unlock()
        body?(self)
    }

    override func dropProducer() -> Any? {
        body.take()
    }
}
