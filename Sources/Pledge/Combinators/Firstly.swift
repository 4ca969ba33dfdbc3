// PromiseKit's spelling, kept for source compatibility.
// swift-format-ignore: AmbiguousTrailingClosureOverload
/// Starts a chain with the thenable `body` returns, so that every step of the chain reads the
/// same way.
///
/// `body` runs at once, synchronously, on the calling thread. If it throws, the result is
/// rejected with the error.
///
/// ```swift
/// firstly {
///     fetchUser(id)
/// }.then { user in
///     fetchAvatar(user)
/// }.done { avatar in
///     show(avatar)
/// }.catch { error in
///     report(error)
/// }
/// ```
///
/// - Returns: A promise that resolves as the thenable from `body` does.
@inlinable
public func firstly<U: Thenable>(execute body: () throws -> U) -> Promise<U.T> {
    do {
        return Promise(try body())
    } catch {
        return Promise(error: error)
    }
}

/// Starts a chain with the guarantee `body` returns.
///
/// `body` runs at once, synchronously, on the calling thread.
///
/// - Returns: The guarantee from `body`.
@inlinable
public func firstly<G: _GuaranteeThenable>(execute body: () -> G) -> G {
    body()
}

/// The thenables that cannot fail: only ``Guarantee`` conforms, and no other type should.
///
/// The guarantee form of `firstly` is generic over it rather than over `Guarantee<T>`, so that
/// the type checker rules that form out as soon as it knows the closure returns a promise,
/// before it solves the rest of the chain: long chains that start with `firstly` compile faster.
public protocol _GuaranteeThenable: Thenable {}

extension Guarantee: _GuaranteeThenable {}
