import Synchronization

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
    let box: EmptyBox<Result<U.T, Error>> = pendingBox()
    box.recordSite(file, line)
    let pending = RaceTally(thenables.count)
    for thenable in thenables {
        // Once per input, even for a thenable outside Pledge that calls back twice: one input
        // rejected twice must not count as two. The tally is the target, which a cancelled race
        // takes back.
        // Every input is attached, even once a winner is in (see `_race(_:file:line:)`).
        thenable._pipeOnce(target: pending) { _, source, run in
            let result = Box<Result<U.T, Error>>.attached(source).value
            if case .success = result { return run.seal(Retained(box), with: result) }
            guard pending.rejectionIsLast() else { return nil }
            return run.seal(Retained(box), with: .failure(PMKError.noWinner))
        }
    }
    cancelInputs(of: box, target: pending, thenables)
    return Promise(box: box)
}

/// Attaches every input to one box, which records the caller's site, `file` and `line`, first;
/// the first result seals it and the later ones are ignored.
@inlinable
func _race<U: Thenable>(_ thenables: [U], file: StaticString, line: UInt) -> EmptyBox<Result<U.T, Error>> {
    let box: EmptyBox<Result<U.T, Error>> = pendingBox()
    box.recordSite(file, line)
    for thenable in thenables {
        // Every input is attached, even once a winner is in: each was handed to the race, so a
        // loser's later rejection counts as seen (see `LogEvent.unhandledRejection`).
        Trampoline.run { thenable._forward(into: Retained(box), linking: false, &$0) }
    }
    cancelInputs(of: box, target: box, thenables)
    return box
}

/// Makes cancelling `box`, a race's result, cancel each input promise (attached with `target`)
/// that nothing else depends on.
@inlinable
func cancelInputs<U: Thenable, R>(of box: EmptyBox<R>, target: AnyObject, _ thenables: [U]) {
    guard U.self == Promise<U.T>.self, box.isPending else { return }
    let links = FanInLinks(target: target, capacity: thenables.count)
    for thenable in thenables { if let input = thenable._box { links.add(input) } }
    box.addCancelHook { links.cancelInputs() }
}

/// Counts the inputs of `race(fulfilled:)` that have not been rejected yet.
@usableFromInline
final class RaceTally: Sendable {
    @usableFromInline
    let remaining: Atomic<Int>

    @inlinable
    init(_ count: Int) {
        remaining = Atomic(count)
    }

    /// Records one rejection.
    ///
    /// - Returns: Whether it was the last input to be rejected.
    @inlinable
    func rejectionIsLast() -> Bool {
        remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0
    }
}
