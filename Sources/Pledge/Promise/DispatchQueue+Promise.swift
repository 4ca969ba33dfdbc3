import Dispatch

/// Tags the promise-returning overloads of `DispatchQueue.async`: pass ``promise``.
///
/// ```swift
/// DispatchQueue.global().async(.promise) { try parse(data) }
/// ```
public enum PMKNamespacer: Sendable {
    /// Selects `DispatchQueue.async(.promise, …)`.
    case promise
}

extension DispatchQueue {
    /// Runs a throwing `body` asynchronously on this queue and returns a promise of its result.
    ///
    /// `body` runs on this queue, with the given group, quality of service and flags, exactly as
    /// `async(group:qos:flags:execute:)` would run it. The promise is fulfilled with what `body`
    /// returns, or rejected with the error it throws, on this queue. If the promise is cancelled
    /// before the block starts (see ``Promise/cancel()``), `body` never runs.
    ///
    /// ```swift
    /// DispatchQueue.global().async(.promise) {
    ///     try JSONDecoder().decode(User.self, from: data)
    /// }.done { user in
    ///     show(user)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - _: Always ``PMKNamespacer/promise``.
    ///   - group: A group to associate the work with, as for `async(group:…)`.
    ///   - qos: The quality of service of the work.
    ///   - flags: Dispatch flags for the work item.
    ///   - body: The work; its return value fulfils the promise and its error rejects it.
    ///   - file: Where the promise was made, for the ``LogEvent``s about a lost promise in debug
    ///     builds (see ``CreationSite``); leave it out.
    ///   - line: The line that goes with `file`; leave it out.
    /// - Returns: A promise of `body`'s result.
    public func async<T: Sendable>(
        _: PMKNamespacer, group: DispatchGroup? = nil, qos: DispatchQoS = .default,
        flags: DispatchWorkItemFlags = [], execute body: @escaping @Sendable () throws -> T,
        file: StaticString = #fileID, line: UInt = #line
    ) -> Promise<T> {
        let box = EmptyBox<Result<T, Error>>(site: (file, line))
        let body = HandlerContext.here(body)
        let activity = PledgeActivity.here
        activity.dispatched()
        async(group: group, qos: qos, flags: flags) {
            defer { activity.finished() }
            // Cancelled before the block started: the body never runs.
            guard box.isPending else { return }
            do {
                box.resolve(.success(try body()))
            } catch {
                box.resolve(.failure(error))
            }
        }
        return Promise(box: box)
    }

    /// Runs a non-throwing `body` asynchronously on this queue and returns a guarantee of its
    /// value.
    ///
    /// `body` runs on this queue, with the given group, quality of service and flags; the
    /// guarantee resolves there with what `body` returns. A throwing closure picks the overload
    /// that returns a ``Promise``.
    ///
    /// ```swift
    /// DispatchQueue.global().async(.promise) {
    ///     expensiveChecksum(of: data)
    /// }.done { checksum in
    ///     print(checksum)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - _: Always ``PMKNamespacer/promise``.
    ///   - group: A group to associate the work with, as for `async(group:…)`.
    ///   - qos: The quality of service of the work.
    ///   - flags: Dispatch flags for the work item.
    ///   - body: The work; its return value resolves the guarantee.
    ///   - file: Where the guarantee was made, for ``pendingPromises()`` in debug builds (see
    ///     ``CreationSite``); leave it out.
    ///   - line: The line that goes with `file`; leave it out.
    /// - Returns: A guarantee of `body`'s value.
    public func async<T: Sendable>(
        _: PMKNamespacer, group: DispatchGroup? = nil, qos: DispatchQoS = .default,
        flags: DispatchWorkItemFlags = [], execute body: @escaping @Sendable () -> T,
        file: StaticString = #fileID, line: UInt = #line
    ) -> Guarantee<T> {
        let box = EmptyBox<Result<T, Error>>(site: (file, line))
        let body = HandlerContext.attached(body)
        let activity = PledgeActivity.here
        activity.dispatched()
        async(group: group, qos: qos, flags: flags) {
            box.resolve(.success(body()))
            activity.finished()
        }
        return Guarantee(box: box)
    }
}
