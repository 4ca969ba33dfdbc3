// `when` over an iterator of thenables with a limit on how many are pending at once: the fan-in
// of FanIn.swift, pulled lazily.

/// Waits for the thenables an iterator produces, pulling them lazily so that at most
/// `concurrently` of them are pending at once, and collects their values in iteration order.
///
/// The iterator is pulled while fewer than `concurrently` of the thenables it produced are
/// pending, so the limit is reached whenever the iterator can produce that many. Each time one
/// is fulfilled, the next is pulled, on the thread that fulfilled it. The first rejection rejects
/// the result with its error and stops the pulling; thenables already pulled keep running. (A
/// pull that another thread has already begun when the rejection arrives cannot be called back:
/// `next()` runs outside Pledge's lock, so that thread may still take one more thenable from the
/// iterator.) A `concurrently` below 1 rejects the result with ``PMKError/badInput`` without
/// pulling anything. A thenable made in advance that the iterator never gets to hand over is
/// not seen by `when`: if it is rejected and nothing else handles it, it is reported as
/// ``LogEvent/unhandledRejection(_:site:)``.
///
/// Because the iterator is advanced from whichever thread resolves a thenable (one thread at a
/// time, never concurrently), it is `sending`: it must not be used anywhere else afterwards.
/// The iterator is kept until it has returned `nil` or a rejection ends the wait, and each
/// pending thenable keeps the wait going. So an iterator that holds on to the thenables it has
/// returned, such as an array's, should not be used when one of them may never resolve: that
/// one and the iterator would keep each other, and everything chained after `when`, alive for
/// good. Making each thenable inside `next()` avoids that, and is what makes the limit real:
///
/// ```swift
/// var remaining = urls.makeIterator()
/// let downloads = AnyIterator { remaining.next().map { download($0) } }
/// when(fulfilled: downloads, concurrently: 3).done { files in save(files) }
/// ```
///
/// - Parameters:
///   - promiseIterator: Produces the thenables to wait for; it should start each one's work
///     when it is pulled.
///   - concurrently: The most thenables pending at once; at least 1.
///   - file: Where the promise was made, for the ``LogEvent``s about a lost promise in debug
///     builds (see ``CreationSite``); leave it out.
///   - line: The line that goes with `file`; leave it out.
/// - Returns: A promise of the values, in the order the iterator produced them.
@inlinable
public func when<It: IteratorProtocol>(
    fulfilled promiseIterator: sending It, concurrently: Int, file: StaticString = #fileID, line: UInt = #line
) -> Promise<[It.Element.T]> where It.Element: Thenable {
    guard concurrently > 0 else { return Promise(error: PMKError.badInput, file: file, line: line) }
    return Promise(
        box: _fanIn(promiseIterator, limit: concurrently, FanInValues<It.Element.T>.self, file: file, line: line))
}

/// Waits for the thenables an iterator produces to resolve, pulling them lazily so that at most
/// `concurrently` of them are pending at once, and collects their results in iteration order.
///
/// The iterator is pulled as for ``when(fulfilled:concurrently:file:line:)``, except that a
/// rejection does not stop it: every thenable the iterator produces is pulled and waited for, and
/// the result never fails. Each time one resolves, the next is pulled, on the thread that resolved it. The
/// result cannot report bad input, so a `concurrently` below 1 counts as 1, and Pledge logs
/// ``LogEvent/badInput(_:)``. (PromiseKit gives one `PMKError.badInput` result instead, whatever
/// the number of inputs.) The iterator is `sending`, and is kept, as for the `fulfilled:` form:
/// make each thenable inside `next()`.
///
/// ```swift
/// var remaining = jobs.makeIterator()
/// let runs = AnyIterator { remaining.next().map { run($0) } }
/// when(resolved: runs, concurrently: 2).done { results in report(results) }
/// ```
///
/// - Parameters:
///   - promiseIterator: Produces the thenables to wait for; it should start each one's work
///     when it is pulled.
///   - concurrently: The most thenables pending at once; at least 1.
///   - file: Where the guarantee was made, for the ``LogEvent``s about a lost guarantee in
///     debug builds (see ``CreationSite``); leave it out.
///   - line: The line that goes with `file`; leave it out.
/// - Returns: A guarantee of the results, in the order the iterator produced them.
@inlinable
public func when<It: IteratorProtocol>(
    resolved promiseIterator: sending It, concurrently: Int, file: StaticString = #fileID, line: UInt = #line
) -> Guarantee<[Result<It.Element.T, Error>]> where It.Element: Thenable {
    if concurrently < 1 {
        conf.log(.badInput("when(resolved:concurrently: \(concurrently)) waits for one thenable at a time"))
    }
    return Guarantee(
        box: _fanIn(
            promiseIterator, limit: max(concurrently, 1), FanInResults<It.Element.T>.self, file: file, line: line))
}
