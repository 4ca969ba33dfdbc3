import Foundation
import PledgeMigrateCore

// pledge-migrate [--check] PATH...
//
// Rewrites the PromiseKit code in each Swift file under PATH for Pledge, in place, and prints
// what it rewrote and what it could not (`path:line: what, and the fix`). With --check it writes
// nothing and exits 1 when a file would change or needs a person.

let usage = "usage: pledge-migrate [--check] PATH..."
var arguments = Array(CommandLine.arguments.dropFirst())
let check = arguments.contains("--check")
arguments.removeAll { $0 == "--check" }
if arguments.isEmpty || arguments.contains(where: { $0.hasPrefix("-") }) {
    FileHandle.standardError.write(Data((usage + "\n").utf8))
    exit(2)
}

func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

let files: [String]
do {
    files = try SourceFiles.find(in: arguments)
} catch {
    printError("pledge-migrate: \(error)")
    exit(2)
}

var changedFiles = 0
var reportCount = 0
for file in files {
    guard let data = FileManager.default.contents(atPath: file), let source = String(data: data, encoding: .utf8) else {
        printError("\(file):1: not readable as UTF-8; left unchanged")
        reportCount += 1
        continue
    }
    let migration = Migration.migrate(source, path: file)
    for change in migration.changes { print(change) }
    for report in migration.reports { print("\(report) [needs a person]") }
    reportCount += migration.reports.count
    guard let rewritten = migration.rewritten else { continue }
    changedFiles += 1
    if !check {
        do {
            try Data(rewritten.utf8).write(to: URL(fileURLWithPath: file), options: .atomic)
        } catch {
            printError("\(file):1: could not write: \(error)")
            exit(1)
        }
    }
}
let verb = check ? "would change" : "changed"
print("pledge-migrate: \(files.count) files, \(verb) \(changedFiles), \(reportCount) findings for a person")
if check && (changedFiles > 0 || reportCount > 0) { exit(1) }
