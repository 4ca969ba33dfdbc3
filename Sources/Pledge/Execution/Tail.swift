/// How a ``Tail`` is run.
@usableFromInline
enum TailMode {
    /// Inline, at the end of the current block: the block has nothing else left to run.
    case runInline
    /// In a block of its own on its queue, which may take the chain's next hops inline.
    case dispatch
    /// In a block of its own on its queue, which takes no hop inline: for a tail dispatched
    /// early, just before a later handler for the same queue (see ``BlockSharing``), so that
    /// what follows the tail queues behind that handler rather than overtaking it.
    case dispatchUnshared
}

/// What a ``Tail`` does: runs a queued handler's operation as `mode` says, given the count on the
/// handler's box and the count on the box it waited on, whose value is the operation's input.
@usableFromInline
typealias TailBody = (consuming Retained<AnyObject>, consuming Retained<AnyObject>, TailMode, inout Run) -> Step?

/// A queued handler whose input is in and whose queue is the one the current block runs on: a
/// candidate to run inline at the end of the block instead of in a block of its own (see
/// ``BlockSharing``).
///
/// It holds a count on the handler's box and one on the box it waited on, whose value it reads
/// when it runs: both must outlive the firing that made the tail.
@frozen @usableFromInline
struct Tail: ~Copyable {
    @usableFromInline
    var box: Retained<AnyObject>
    @usableFromInline
    var source: Retained<AnyObject>
    @usableFromInline
    let body: TailBody

    @inlinable @inline(__always)
    init(box: consuming Retained<AnyObject>, source: consuming Retained<AnyObject>, body: @escaping TailBody) {
        self.box = box
        self.source = source
        self.body = body
    }

    /// Runs the tail as `mode` says.
    ///
    /// - Returns: the step it hands back (only when run inline).
    @inlinable @inline(__always)
    consuming func run(_ mode: TailMode, _ run: inout Run) -> Step? {
        let body = self.body
        return body(box, source, mode, &run)
    }
}
