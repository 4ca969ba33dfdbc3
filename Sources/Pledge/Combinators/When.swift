// `when` over arrays and variadic lists: wait for many thenables at once. Every form here and in
// When+Tuples.swift is a thin wrapper over the fan-in in AllFanIn.swift; the forms in
// When+Concurrently.swift use the pulling one in FanIn.swift.

/// Waits for every thenable to be fulfilled and collects their values in input order.
///
/// The result is rejected as soon as any input is rejected, with that input's error; the other
/// inputs keep running, and their results are ignored. An empty array gives a promise that is
/// already fulfilled with `[]`. Nothing is dispatched: the result resolves on the thread that
/// resolves the last input (or the first rejected one), so chain with an `on:` queue as usual.
///
/// ```swift
/// let avatars: Promise<[Image]> = when(fulfilled: users.map { fetchAvatar($0) })
/// ```
///
/// - Parameters:
///   - thenables: The promises or guarantees to wait for.
///   - file: Where the promise was made, for the ``LogEvent``s about a lost promise in debug
///     builds (see ``CreationSite``); leave it out.
///   - line: The line that goes with `file`; leave it out.
/// - Returns: A promise of the values, in the order of `thenables`.
@inlinable
public func when<U: Thenable>(
    fulfilled thenables: [U], file: StaticString = #fileID, line: UInt = #line
) -> Promise<[U.T]> {
    Promise(box: _fanIn(all: thenables, FanInValues.self, file: file, line: line))
}

/// Waits for thenables of different value types to be fulfilled and collects their values, as
/// existentials, in input order.
///
/// This form is only picked when the array mixes types (say promises of `Int` and guarantees of
/// `String`); an array of one thenable type uses ``when(fulfilled:file:line:)->Promise<[U.T]>``
/// and gets typed values. The values are `any Sendable` rather than PromiseKit's `Any`, because
/// whatever a promise carries must be `Sendable`. Rejection, ordering and threading are as for
/// the typed form.
///
/// ```swift
/// when(fulfilled: [fetchCount(), fetchName()] as [any Thenable]).done { values in
///     let count = values[0] as? Int
///     let name = values[1] as? String
/// }
/// ```
///
/// - Parameters:
///   - thenables: The promises or guarantees to wait for.
///   - file: Where the promise was made, for the ``LogEvent``s about a lost promise in debug
///     builds (see ``CreationSite``); leave it out.
///   - line: The line that goes with `file`; leave it out.
/// - Returns: A promise of the values, in the order of `thenables`.
@_disfavoredOverload
@inlinable
public func when(
    fulfilled thenables: [any Thenable], file: StaticString = #fileID, line: UInt = #line
) -> Promise<[any Sendable]> {
    when(fulfilled: thenables.map { _erasingValue($0) }, file: file, line: line)
}

/// A promise of `thenable`'s value as an existential; the existential form of `when` waits for
/// these.
@inlinable
func _erasingValue<U: Thenable>(_ thenable: U) -> Promise<any Sendable> {
    Promise(box: thenable._chain(.inline, MapOperation { $0 as any Sendable }))
}

/// Waits for every `Void` thenable to be fulfilled.
///
/// The result is rejected as soon as any input is rejected, with that input's error; the other
/// inputs keep running. No arguments give a promise that is already fulfilled. Nothing is
/// dispatched: the result resolves on the thread that resolves the last input (or the first
/// rejected one).
///
/// ```swift
/// when(fulfilled: save(a), save(b), save(c)).done { print("all saved") }
/// ```
///
/// - Parameters:
///   - thenables: The `Void` promises or guarantees to wait for.
///   - file: Where the promise was made, for the ``LogEvent``s about a lost promise in debug
///     builds (see ``CreationSite``); leave it out.
///   - line: The line that goes with `file`; leave it out.
/// - Returns: A promise fulfilled once every input is fulfilled.
@inlinable
public func when<U: Thenable>(
    fulfilled thenables: U..., file: StaticString = #fileID, line: UInt = #line
) -> Promise<Void> where U.T == Void {
    when(fulfilled: thenables, file: file, line: line)
}

/// Waits for every `Void` thenable in an array to be fulfilled.
///
/// The result is rejected as soon as any input is rejected, with that input's error; the other
/// inputs keep running. An empty array gives a promise that is already fulfilled. Nothing is
/// dispatched: the result resolves on the thread that resolves the last input (or the first
/// rejected one).
///
/// ```swift
/// when(fulfilled: files.map { upload($0) }).done { print("uploaded") }
/// ```
///
/// - Parameters:
///   - thenables: The `Void` promises or guarantees to wait for.
///   - file: Where the promise was made, for the ``LogEvent``s about a lost promise in debug
///     builds (see ``CreationSite``); leave it out.
///   - line: The line that goes with `file`; leave it out.
/// - Returns: A promise fulfilled once every input is fulfilled.
@inlinable
public func when<U: Thenable>(
    fulfilled thenables: [U], file: StaticString = #fileID, line: UInt = #line
) -> Promise<Void> where U.T == Void {
    Promise(box: _fanIn(all: thenables, FanInVoid.self, file: file, line: line))
}

/// Waits for every promise to resolve, fulfilled or rejected, and collects their results in
/// input order.
///
/// The result never fails: a rejection is just one of the results. It resolves as soon as the
/// last input resolves, on the thread that resolves it; nothing is dispatched. No arguments give
/// a guarantee that already has `[]`.
///
/// ```swift
/// when(resolved: fetch(a), fetch(b)).done { results in
///     let failures = results.filter { if case .failure = $0 { true } else { false } }
/// }
/// ```
///
/// - Parameters:
///   - promises: The promises to wait for.
///   - file: Where the guarantee was made, for the ``LogEvent``s about a lost guarantee in
///     debug builds (see ``CreationSite``); leave it out.
///   - line: The line that goes with `file`; leave it out.
/// - Returns: A guarantee of the results, in the order of `promises`.
@inlinable
public func when<T>(
    resolved promises: Promise<T>..., file: StaticString = #fileID, line: UInt = #line
) -> Guarantee<[Result<T, Error>]> {
    when(resolved: promises, file: file, line: line)
}

/// Waits for every promise in an array to resolve, fulfilled or rejected, and collects their
/// results in input order.
///
/// The result never fails: a rejection is just one of the results. It resolves as soon as the
/// last input resolves, on the thread that resolves it; nothing is dispatched. An empty array
/// gives a guarantee that already has `[]`.
///
/// ```swift
/// when(resolved: urls.map { download($0) }).done { results in
///     let downloaded = results.compactMap { try? $0.get() }
/// }
/// ```
///
/// - Parameters:
///   - promises: The promises to wait for.
///   - file: Where the guarantee was made, for the ``LogEvent``s about a lost guarantee in
///     debug builds (see ``CreationSite``); leave it out.
///   - line: The line that goes with `file`; leave it out.
/// - Returns: A guarantee of the results, in the order of `promises`.
@inlinable
public func when<T>(
    resolved promises: [Promise<T>], file: StaticString = #fileID, line: UInt = #line
) -> Guarantee<[Result<T, Error>]> {
    Guarantee(box: _fanIn(all: promises, FanInResults.self, file: file, line: line))
}

/// Waits for every thenable to resolve and collects their results in input order; the form of
/// ``when(resolved:file:line:)-([Promise<T>],_,_)`` for any thenable type, such as guarantees or
/// your own.
///
/// The result never fails and resolves as soon as the last input resolves, on the thread that
/// resolves it; nothing is dispatched.
///
/// ```swift
/// when(resolved: tasks.map { $0.completion }).done { results in … }
/// ```
///
/// - Parameters:
///   - thenables: The thenables to wait for.
///   - file: Where the guarantee was made, for the ``LogEvent``s about a lost guarantee in
///     debug builds (see ``CreationSite``); leave it out.
///   - line: The line that goes with `file`; leave it out.
/// - Returns: A guarantee of the results, in the order of `thenables`.
@inlinable
public func when<U: Thenable>(
    resolved thenables: U..., file: StaticString = #fileID, line: UInt = #line
) -> Guarantee<[Result<U.T, Error>]> {
    when(resolved: thenables, file: file, line: line)
}

/// Waits for every thenable in an array to resolve and collects their results in input order;
/// the form of ``when(resolved:file:line:)-([Promise<T>],_,_)`` for any thenable type.
///
/// The result never fails and resolves as soon as the last input resolves, on the thread that
/// resolves it; nothing is dispatched. An empty array gives a guarantee that already has `[]`.
///
/// ```swift
/// when(resolved: jobs.map { $0.run() }).done { results in report(results) }
/// ```
///
/// - Parameters:
///   - thenables: The thenables to wait for.
///   - file: Where the guarantee was made, for the ``LogEvent``s about a lost guarantee in
///     debug builds (see ``CreationSite``); leave it out.
///   - line: The line that goes with `file`; leave it out.
/// - Returns: A guarantee of the results, in the order of `thenables`.
@inlinable
public func when<U: Thenable>(
    resolved thenables: [U], file: StaticString = #fileID, line: UInt = #line
) -> Guarantee<[Result<U.T, Error>]> {
    Guarantee(box: _fanIn(all: thenables, FanInResults.self, file: file, line: line))
}

/// Waits for every guarantee and collects their values in input order.
///
/// Guarantees cannot fail, so neither can the result. It resolves on the thread that resolves
/// the last input; nothing is dispatched. An empty array gives a guarantee that already has `[]`.
///
/// ```swift
/// when(guarantees: ids.map { cachedName($0) }).done { names in print(names) }
/// ```
///
/// - Parameters:
///   - guarantees: The guarantees to wait for.
///   - file: Where the guarantee was made, for the ``LogEvent``s about a lost guarantee in
///     debug builds (see ``CreationSite``); leave it out.
///   - line: The line that goes with `file`; leave it out.
/// - Returns: A guarantee of the values, in the order of `guarantees`.
@inlinable
public func when<T>(
    guarantees: [Guarantee<T>], file: StaticString = #fileID, line: UInt = #line
) -> Guarantee<[T]> {
    Guarantee(box: _fanIn(all: guarantees, FanInValues.self, file: file, line: line))
}

/// Waits for every `Void` guarantee.
///
/// It resolves on the thread that resolves the last input; nothing is dispatched. An empty array
/// gives a guarantee that has already resolved.
///
/// ```swift
/// when(guarantees: animations.map { $0.run() }).done { print("all finished") }
/// ```
///
/// - Parameters:
///   - guarantees: The guarantees to wait for.
///   - file: Where the guarantee was made, for the ``LogEvent``s about a lost guarantee in
///     debug builds (see ``CreationSite``); leave it out.
///   - line: The line that goes with `file`; leave it out.
/// - Returns: A guarantee that resolves once every input has.
@inlinable
public func when(
    guarantees: [Guarantee<Void>], file: StaticString = #fileID, line: UInt = #line
) -> Guarantee<Void> {
    Guarantee(box: _fanIn(all: guarantees, FanInVoid.self, file: file, line: line))
}

/// Waits for every guarantee and collects their values in input order.
///
/// It resolves on the thread that resolves the last input; nothing is dispatched.
///
/// ```swift
/// when(after(seconds: 1).map { 1 }, Guarantee.value(2)).done { print($0) }   // [1, 2]
/// ```
///
/// - Parameters:
///   - guarantees: The guarantees to wait for.
///   - file: Where the guarantee was made, for the ``LogEvent``s about a lost guarantee in
///     debug builds (see ``CreationSite``); leave it out.
///   - line: The line that goes with `file`; leave it out.
/// - Returns: A guarantee of the values, in argument order.
@inlinable
public func when<T>(
    _ guarantees: Guarantee<T>..., file: StaticString = #fileID, line: UInt = #line
) -> Guarantee<[T]> {
    when(guarantees: guarantees, file: file, line: line)
}

/// Waits for every `Void` guarantee.
///
/// It resolves on the thread that resolves the last input; nothing is dispatched.
///
/// ```swift
/// when(after(seconds: 1), fadeOut()).done { print("both finished") }
/// ```
///
/// - Parameters:
///   - guarantees: The guarantees to wait for.
///   - file: Where the guarantee was made, for the ``LogEvent``s about a lost guarantee in
///     debug builds (see ``CreationSite``); leave it out.
///   - line: The line that goes with `file`; leave it out.
/// - Returns: A guarantee that resolves once every input has.
@inlinable
public func when(
    _ guarantees: Guarantee<Void>..., file: StaticString = #fileID, line: UInt = #line
) -> Guarantee<Void> {
    when(guarantees: guarantees, file: file, line: line)
}
