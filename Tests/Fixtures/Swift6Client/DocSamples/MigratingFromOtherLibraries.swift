// The samples of Sources/Pledge/Pledge.docc/MigratingFromOtherLibraries.md, compiled by every
// build. `.ci/check-doc-samples` fails when a sample there is missing here: edit both together.
// (The other libraries' code there is fenced as text and not compiled.)

import Foundation
import Pledge

enum MigratingFromOtherLibrariesSamples {
    static func anyOf() {
        func fetchFromAnyMirror(_ mirrors: [URL]) -> Promise<[Data]> {
            when(resolved: mirrors.map { fetch($0) }).map { results in
                let copies = results.compactMap { try? $0.get() }
                guard !copies.isEmpty else { throw PMKError.noWinner }
                return copies
            }
        }
        _ = fetchFromAnyMirror
    }
}
