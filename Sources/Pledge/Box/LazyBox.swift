/// The box of a lazy promise or guarantee (see ``Promise/lazy(_:file:line:)``): pending, holding the body
/// that resolves it until the first handler is attached.
///
/// Its state word starts with ``BoxPhase/notStarted`` set. The first ``EmptyBox/store(_:lane:sealing:)``
/// clears it under the lock and tells its caller to start the body (``startBody()``) once the
/// handler is stored and every lock is dropped; a cancellation that comes first clears it instead,
/// and the body is released unrun (``discardBody()``). A lazy box nothing attaches to is freed
/// with its body, unrun: no resolver was ever made, so nothing logs.
final class LazyBox<T: Sendable>: EmptyBox<Result<T, Error>>, @unchecked Sendable {
    // Safety: `body` is written in `init`, before the box is published; after that it is read
    // and cleared only by the one thread that cleared the not-started bit under the box's lock
    // (the first attaching thread in `startBody()`, or the cancelling thread in
    // `discardBody()`), whose taking of the lock orders it after `init`; and by `deinit`, when no
    // other thread holds the box.
    @exclusivity(unchecked)
    private var body: (@Sendable (LazyBox<T>) -> Void)?

    /// Makes a pending box that calls `body` with itself on its first attachment.
    init(_ body: @escaping @Sendable (LazyBox<T>) -> Void) {
        self.body = body
        super.init(placeholder: pendingPlaceholder())
        // Not published yet: no other thread can see the word.
        state.store(BoxPhase.notStarted, ordering: .relaxed)
    }

    override func startBody() {
        // Taken, so that the body's captures go as soon as it returns.
        guard let body = body.take() else { return }
        body(self)
    }

    override func discardBody() {
        body = nil
    }
}
