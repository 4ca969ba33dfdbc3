/// A box born with its value (`Promise.value`, an operator applied at once to a settled input):
/// no lock, no handlers; a handler attached to it runs at once. A promise born rejected is an
/// ``EmptyBox`` instead (``EmptyBox/init(unobserved:site:)``), so that an unseen error is reported.
@usableFromInline
final class SealedBox<R>: Box<R>, @unchecked Sendable {
    // Safety: adds no state; `value` is written once, in `init`, before the box is published.

    /// A box holding `value`, a success; `site` is where the chain it starts was made, if known.
    @inlinable
    init(value: R, site: SourceSite? = nil) {
        super.init(value: value, isSealedBox: true, outcome: .fulfilled, site: site)
    }

    @inlinable
    override func isSealed(observing: Bool) -> Bool { true }

    @inlinable
    override func store(_ handler: consuming Handler, lane: UInt64, thread: UInt64) -> Attachment { .run(handler) }
}

/// A box born sealed with `result`, for a promise made at `site`: a ``SealedBox`` for a value;
/// for a failure an ``EmptyBox`` that reports the error if it is freed before anything saw it.
@inlinable
func bornSealed<T>(_ result: Result<T, Error>, site: SourceSite?) -> Box<Result<T, Error>> {
    switch result {
    case .success: SealedBox(value: result, site: site)
    case .failure(let error): EmptyBox(unobserved: error, site: site)
    }
}
