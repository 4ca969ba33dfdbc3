import SwiftParser
import SwiftSyntax

/// One thing `pledge-migrate` did or found in a file: a line and what it says.
public struct Finding: Sendable, Equatable, CustomStringConvertible {
    public let path: String
    public let line: Int
    public let message: String

    public init(path: String, line: Int, message: String) {
        self.path = path
        self.line = line
        self.message = message
    }

    /// `path:line: message`, the form compilers and editors read.
    public var description: String { "\(path):\(line): \(message)" }
}

/// The file a ``Reporter`` or ``Rewriter`` reads, to say where a finding is.
struct SourceFile {
    let path: String
    let converter: SourceLocationConverter

    /// `message` about `node`, at its line.
    func finding(_ message: String, at node: some SyntaxProtocol) -> Finding {
        Finding(path: path, line: node.startLocation(converter: converter).line, message: message)
    }
}

/// What migrating one file's source gives.
public struct Migration: Sendable {
    /// The new source; `nil` when nothing changed or the file could not be parsed.
    public let rewritten: String?
    /// Each rewrite made, one line each.
    public let changes: [Finding]
    /// What could not be rewritten and needs a person: each with its one-line fix.
    public let reports: [Finding]

    /// Migrates `source`, the text of the file at `path` (used in findings only).
    ///
    /// A file that does not parse is left as it is, with one report. Migrating migrated code
    /// changes nothing: every rewrite produces code no rewrite matches.
    public static func migrate(_ source: String, path: String) -> Migration {
        let tree = Parser.parse(source: source)
        let converter = SourceLocationConverter(fileName: path, tree: tree)
        guard !tree.hasError else {
            let report = Finding(path: path, line: 1, message: "not parsed as Swift; left unchanged")
            return Migration(rewritten: nil, changes: [], reports: [report])
        }
        let file = SourceFile(path: path, converter: converter)
        let reporter = Reporter(file)
        reporter.walk(tree)
        let rewriter = Rewriter(file, own: reporter.declared)
        let result = rewriter.rewrite(tree).description
        return Migration(
            rewritten: result == source ? nil : result, changes: rewriter.changes, reports: reporter.reports)
    }
}
