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
    return Promise(box: _race(thenables, fulfilledOnly: true, file: file, line: line))
}

/// Attaches every input to one race box, which records the caller's site, `file` and `line`,
/// first; the first result seals it (with `fulfilledOnly`, the first fulfilment, or `noWinner`
/// once all are rejected) and the later ones are ignored.
@inlinable
func _race<U: Thenable>(
    _ thenables: [U], fulfilledOnly: Bool = false, file: StaticString, line: UInt
) -> EmptyBox<Result<U.T, Error>> {
    let race = RaceFanIn<U.T>(inputs: thenables.count, fulfilledOnly: fulfilledOnly, site: (file, line))
    for thenable in thenables {
        // Every input is attached, even once a winner is in: each was handed to the race, so a
        // loser's later rejection counts as seen (see `LogEvent.unhandledRejection`).
        guard let input = thenable._box else {
            // A thenable outside Pledge may call back more than once: only the first counts.
            let once = OnceFlag()
            thenable.pipe { result in
                if once.claim() {
                    ThreadRun.current.start(race.deliver(result, from: ObjectIdentifier(once)))
                }
            }
            continue
        }
        // A promise is cancelled with the race, when nothing else depends on it.
        if U.self == Promise<U.T>.self { race.link(input) }
        input.attach(Handler(race, for: input))
    }
    return race
}

/// The box of a race's result, which is also the receiver it attaches to every input: the first
/// result seals it.
///
/// It keeps a non-owning link to each input promise that has not delivered, to cancel those with
/// the race. A link is cleared, under the lock, when its box delivers or is freed (see
/// ``abandon(from:)``), so a link read under the lock names a box whose memory is still
/// allocated, as ``ChainedBox/upstreamLink`` does.
@usableFromInline
final class RaceFanIn<T: Sendable>: EmptyBox<Result<T, Error>>, Receiver, @unchecked Sendable {
    // Safety: `links` is read and written only under the box's `lock`; the rest is immutable or
    // atomic, or the box's own (see `EmptyBox`).
    @usableFromInline let fulfilledOnly: Bool
    /// Inputs not rejected yet, for `race(fulfilled:)`.
    @usableFromInline let remaining: Atomic<Int>
    @usableFromInline var links: [ObjectIdentifier: Unmanaged<AnyBox>] = [:]

    @inlinable
    init(inputs: Int, fulfilledOnly: Bool, site: SourceSite) {
        self.fulfilledOnly = fulfilledOnly
        remaining = Atomic(inputs)
        super.init(site: site)
    }

    /// Keeps a link to the input promise `input`.
    @inlinable
    func link(_ input: AnyBox) {
        lock.withLock { links[ObjectIdentifier(input)] = Unmanaged.passUnretained(input) }
    }

    @inlinable
    func receive(from source: Box<Result<T, Error>>) -> Work? {
        deliver(source.result(), from: ObjectIdentifier(source))
    }

    /// Records the result of the input `source`.
    @inlinable
    func deliver(_ result: Result<T, Error>, from source: ObjectIdentifier) -> Work? {
        abandon(from: source)
        if fulfilledOnly, case .failure = result {
            guard remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 else { return nil }
            return seal(.failure(PMKError.noWinner))
        }
        return seal(result)
    }

    /// The input `source` delivered, or is freed unresolved: forgets its link.
    @inlinable
    func abandon(from source: ObjectIdentifier) {
        lock.withLock { _ = links.removeValue(forKey: source) }
    }

    /// The race was cancelled: each input still linked loses the race as a dependent, and is
    /// cancelled when that was its last one.
    @usableFromInline
    override func cancelInputs() {
        let inputs = lock.withLock { links.values.compactMap(retainIfAlive) }
        for input in inputs { cancelInput(input, of: self) }
    }
}
