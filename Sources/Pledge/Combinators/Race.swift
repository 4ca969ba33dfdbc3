/// Resolves as the first of the thenables resolves, with its value or its error.
///
/// The other thenables (the losers) keep running; their results are ignored and nothing is
/// reported about them. Nothing is dispatched: the result resolves on the thread that resolves
/// the winner. Called with no arguments, the result is rejected with ``PMKError/badInput``.
///
/// ```swift
/// race(fetchFromMirrorA(), fetchFromMirrorB()).done { data in use(data) }
/// ```
///
/// - Parameters:
///   - thenables: The thenables to race.
///   - file: Where the promise was made, for the ``LogEvent``s about a lost promise in debug
///     builds (see ``CreationSite``); leave it out.
///   - line: The line that goes with `file`; leave it out.
/// - Returns: A promise that resolves as the first thenable to resolve does.
@inlinable
public func race<U: Thenable>(_ thenables: U..., file: StaticString = #fileID, line: UInt = #line) -> Promise<U.T> {
    race(thenables, file: file, line: line)
}

/// Resolves as the first thenable in an array resolves, with its value or its error.
///
/// The losers keep running; their results are ignored and nothing is reported about them.
/// Nothing is dispatched: the result resolves on the thread that resolves the winner. An empty
/// array rejects the result with ``PMKError/badInput``.
///
/// ```swift
/// race(mirrors.map { fetch(from: $0) }).done { data in use(data) }
/// ```
///
/// - Parameters:
///   - thenables: The thenables to race.
///   - file: Where the promise was made, for the ``LogEvent``s about a lost promise in debug
///     builds (see ``CreationSite``); leave it out.
///   - line: The line that goes with `file`; leave it out.
/// - Returns: A promise that resolves as the first thenable to resolve does.
@inlinable
public func race<U: Thenable>(_ thenables: [U], file: StaticString = #fileID, line: UInt = #line) -> Promise<U.T> {
    guard !thenables.isEmpty else { return Promise(error: PMKError.badInput, file: file, line: line) }
    return Promise(box: _race(thenables, file: file, line: line))
}

/// Resolves as the first of the guarantees resolves, with its value.
///
/// The losers keep running and are ignored. Nothing is dispatched: the result resolves on the
/// thread that resolves the winner. A guarantee cannot report bad input, so called with no
/// arguments the result never resolves, as in PromiseKit, and Pledge logs
/// ``LogEvent/badInput(_:)``.
///
/// ```swift
/// race(after(seconds: 1).map { "slow" }, after(seconds: 0.1).map { "fast" }).done { print($0) }
/// ```
///
/// - Parameters:
///   - guarantees: The guarantees to race.
///   - file: Where the guarantee was made, for the ``LogEvent``s about a lost guarantee in
///     debug builds (see ``CreationSite``); leave it out.
///   - line: The line that goes with `file`; leave it out.
/// - Returns: A guarantee of the first value.
@inlinable
public func race<T>(_ guarantees: Guarantee<T>..., file: StaticString = #fileID, line: UInt = #line) -> Guarantee<T> {
    if guarantees.isEmpty { conf.log(.badInput("race() was given no guarantees; its result never resolves")) }
    return Guarantee(box: _race(guarantees, file: file, line: line))
}

/// Resolves as the first thenable in an array is fulfilled; rejections are ignored unless every
/// thenable is rejected.
///
/// When every thenable is rejected, the result is rejected with ``PMKError/noWinner``. The
/// losers keep running; their results are ignored and nothing is reported about them. Nothing is
/// dispatched: the result resolves on the thread that fulfils the winner (or rejects the last
/// thenable). An empty array rejects the result with ``PMKError/badInput``.
///
/// ```swift
/// race(fulfilled: mirrors.map { fetch(from: $0) }).done { data in
///     use(data)
/// }.catch { error in
///     // PMKError.noWinner: every mirror failed.
/// }
/// ```
///
/// - Parameters:
///   - thenables: The thenables to race.
///   - file: Where the promise was made, for the ``LogEvent``s about a lost promise in debug
///     builds (see ``CreationSite``); leave it out.
///   - line: The line that goes with `file`; leave it out.
/// - Returns: A promise of the first value any thenable is fulfilled with.
@inlinable
public func race<U: Thenable>(
    fulfilled thenables: [U], file: StaticString = #fileID, line: UInt = #line
) -> Promise<U.T> {
    guard !thenables.isEmpty else { return Promise(error: PMKError.badInput, file: file, line: line) }
    return Promise(box: _race(thenables, fulfilledOnly: true, file: file, line: line))
}
