// The PledgeFoundation example of README.md, compiled by every build. Keep it in step.

import Foundation
import Pledge
import PledgeFoundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

enum ReadmeFoundationExample {
    static func fetch(url: URL) {
        URLSession.shared.dataTask(.promise, with: url).validate().done { data, _ in
            print("\(data.count) bytes")
        }.catch { error in
            print("failed: \(error)")  // PMKHTTPError.badStatusCode for a status outside 200..<300
        }
    }
}
