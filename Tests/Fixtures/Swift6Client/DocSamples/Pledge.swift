// The samples of Sources/Pledge/Pledge.docc/Pledge.md (the landing page), compiled by every
// build. `.ci/check-doc-samples` fails when a sample there is missing here: edit both together.

import Pledge

enum LandingPageSamples {
    static func overview() {
        firstly {
            fetchUser(id: 42)
        }.map { user in
            user.name
        }.done { name in
            print("Hello, \(name)")
        }.catch { error in
            print("Failed: \(error)")
        }
    }
}
