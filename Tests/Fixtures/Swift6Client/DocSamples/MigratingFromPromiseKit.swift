// The code examples of the DocC article "Migrating from PromiseKit 8"
// (Sources/Pledge/Pledge.docc/MigratingFromPromiseKit.md), line for line, so that they keep
// compiling in Swift 6 mode. Keep them in step with the article.

import Dispatch
import Pledge

private func fetchProfile() -> Promise<Profile> {
    Promise.value(Profile(name: "Ada"))
}

private enum MigratingFromPromiseKitExamples {
    static func defaultQueues() {
        conf.Q = (map: .main, return: .main)
    }

    func report(_ result: Result<Profile, Error>) {
        switch result {
        case .success(let profile): print("fetched \(profile.name)")
        case .failure(let error): print("failed: \(error)")
        }
    }

    func summarize(_ downloads: [Promise<Profile>]) {
        when(resolved: downloads).done { results in
            print("\(results.filter(\.isFulfilled).count) of \(results.count) succeeded")
        }
    }

    @MainActor final class ProfileViewModel {
        var title = ""

        func load() {
            fetchProfile().done { profile in self.title = profile.name }.cauterize()
        }

        func reload() async throws {
            title = try await fetchProfile().async().name
        }
    }

    static func saveAndRestore(runTest: () -> Void) {
        let saved = conf.Q
        conf.Q = (map: nil, return: nil)
        defer { conf.Q = saved }
        runTest()
    }

    static func logging() {
        conf.logHandler = { event in
            switch event {
            case .cauterized(let error):
                print("cauterized: \(error)")
            default:
                print(event.message)
            }
        }
    }

    func explain(_ error: Error) {
        if case PMKError.compactMap(let value, let type) = error {
            print("\(value) could not become a \(type)")
        }
    }

    func profileForScript() throws -> Profile {
        try fetchProfile().wait()
    }
}
