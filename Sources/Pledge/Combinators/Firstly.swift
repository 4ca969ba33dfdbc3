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
public func firstly<T: Sendable>(execute body: () -> Guarantee<T>) -> Guarantee<T> {
    body()
}
