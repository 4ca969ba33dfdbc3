/// Where a promise or a guarantee was made: the file and line of the initialiser, `pending()`,
/// `when`, `race`, `retry`, `after` or `DispatchQueue.async(.promise)` call, as `#fileID` and
/// `#line` give them.
///
/// Debug builds of Pledge record it, list it in ``pendingPromises()``, and attach it to the
/// ``LogEvent``s about a promise that was lost or seems to be:
/// ``LogEvent/pendingPromiseDeallocated(site:)``,
/// ``LogEvent/pendingGuaranteeDeallocated(site:)``, ``LogEvent/unhandledRejection(_:site:)``
/// and ``LogEvent/longPending(site:age:)``.
/// A promise an operator returns (`map`, `then`, `done`, `timeout`, `delay`, …) carries the site
/// of the first promise of its chain. The result of `when`, `race` or `retry` (in every form,
/// `when(fulfilled:concurrently:)` included) carries the line that called it, even when bad
/// input rejects it at once: a chain that begins there names that line, not the inputs' sites.
/// The promises `PledgeFoundation` makes carry none. `firstly` hands back the promise its body
/// returns, site and all; when the body throws, or returns a thenable that is not a
/// ``Promise``, its result carries none either. Release builds record nothing, so those events
/// carry `nil` and the recording costs nothing.
///
/// ```swift
/// conf.logHandler = { event in
///     if case .unhandledRejection(let error, let site?) = event {
///         print("unhandled \(error); the chain began at \(site)")
///     }
/// }
/// ```
public struct CreationSite: Sendable, Hashable, CustomStringConvertible {
    /// The file, as `#fileID` spells it: `Module/File.swift`.
    public let fileID: String

    /// The line.
    public let line: Int

    /// Makes a site; Pledge makes them from `#fileID` and `#line`.
    public init(fileID: String, line: Int) {
        self.fileID = fileID
        self.line = line
    }

    /// `Module/File.swift:42`.
    public var description: String { "\(fileID):\(line)" }
}

extension CreationSite {
    /// The site a box recorded, as users see it: `nil` for none, and for the lines of Pledge's
    /// own that the promises it makes for itself record.
    init?(recorded site: SourceSite?) {
        guard let site else { return nil }
        let fileID = "\(site.file)"
        if fileID.hasPrefix("Pledge/") || fileID.hasPrefix("PledgeFoundation/") { return nil }
        self.init(fileID: fileID, line: Int(site.line))
    }
}
