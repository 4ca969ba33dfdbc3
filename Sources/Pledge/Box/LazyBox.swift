/// The box of a lazy promise or guarantee (see ``Promise/lazy(_:file:line:)``): `unstarted`,
/// holding its body, until the first attachment, which moves it to `pending` and starts the body
/// after the lock (``Attachment/start``). Cancelled first, or never attached to, it releases the
/// body unrun (nothing logs: no resolver was made), through ``ThreadRun/release(_:)``, since the
/// body may own the rest of a chain of lazy promises.
final class LazyBox<T: Sendable>: EmptyBox<Result<T, Error>>, @unchecked Sendable {
    // Safety: under the lock, like every stored property of a box (see `EmptyBox`). The body is
    // taken out by the one thread that moved the box out of `unstarted`.
    @exclusivity(unchecked)
    private var body: (@Sendable (LazyBox<T>) -> Void)?

    /// Makes a box, for a promise made at `site`, that calls `body` with itself on its first
    /// attachment.
    init(site: SourceSite, _ body: @escaping @Sendable (LazyBox<T>) -> Void) {
        self.body = body
        super.init(unstartedAt: site)
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
