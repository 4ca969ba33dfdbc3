import Foundation

/// The Swift files `pledge-migrate` is given: files as named, folders searched for `.swift` files
/// (build folders and hidden ones skipped), sorted, each once.
public enum SourceFiles {
    public struct Missing: Error, CustomStringConvertible {
        public let path: String
        public var description: String { "\(path): no such file or folder" }
    }

    public static func find(in paths: [String]) throws -> [String] {
        var found: Set<String> = []
        let manager = FileManager.default
        for path in paths {
            var isFolder: ObjCBool = false
            guard manager.fileExists(atPath: path, isDirectory: &isFolder) else { throw Missing(path: path) }
            guard isFolder.boolValue else {
                found.insert(path)
                continue
            }
            let root = URL(fileURLWithPath: path)
            guard
                let walker = manager.enumerator(
                    at: root, includingPropertiesForKeys: [.isDirectoryKey], options: [.skipsHiddenFiles])
            else { continue }
            for case let url as URL in walker {
                let name = url.lastPathComponent
                if name.hasPrefix(".build") || name == "Pods" || name == "Carthage" {
                    walker.skipDescendants()
                } else if url.pathExtension == "swift" {
                    found.insert(url.path)
                }
            }
        }
        return found.sorted()
    }
}
