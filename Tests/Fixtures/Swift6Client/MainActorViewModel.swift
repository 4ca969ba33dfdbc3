import Dispatch
import Pledge

// App code on the main actor, written as PromiseKit 8 code is: handlers touch main-actor state
// with no annotation and no `on:`, or with `on: .main`. Compiled in Swift 6 mode by
// every build, and in Swift 5 mode by .ci/check-clients.

private struct AppProfile: Sendable {
    let name: String
    let friends: [String]
}

private func fetchAppProfile() -> Promise<AppProfile> { .value(AppProfile(name: "Ada", friends: ["Bob", "Cy"])) }
private func fetchAvatar(_ name: String) -> Promise<Int> { .value(name.count) }
private func cachedCount() -> Guarantee<Int> { .value(3) }

@MainActor
private final class AppProfileViewModel {
    var name = ""
    var status = ""
    var friends: [String] = []
    var loading = false
    var log: [String] = []

    /// Every operator, no `on:`: the closures are isolated to the main actor.
    func load() {
        loading = true
        fetchAppProfile()
            .get { self.log.append("got \($0.name)") }
            .tap { _ in self.log.append("tapped") }
            .map { profile -> AppProfile in
                self.name = profile.name
                return profile
            }
            .compactMap { self.friends.isEmpty ? $0 : $0 }
            .validate { _ in !self.name.isEmpty }
            .then { profile -> Promise<Int> in
                self.status = "loading avatar"
                return fetchAvatar(profile.name)
            }
            .recover { error -> Promise<Int> in
                self.status = "\(error)"
                return .value(0)
            }
            .ensure { self.loading = false }
            .ensureThen {
                self.log.append("ensureThen")
                return Guarantee()
            }
            .done { self.status = "avatar \($0)" }
            .catch { self.status = "failed: \($0)" }
            .finally { self.log.append("finally") }
    }

    /// The same chain with `on: .main`.
    func loadOnMain() {
        fetchAppProfile()
            .get(on: .main) { self.log.append("got \($0.name)") }
            .tap(on: .main) { _ in self.log.append("tapped") }
            .map(on: .main) { profile -> AppProfile in
                self.name = profile.name
                return profile
            }
            .compactMap(on: .main) { self.friends.isEmpty ? $0 : $0 }
            .validate(on: .main) { _ in !self.name.isEmpty }
            .then(on: .main) { profile -> Promise<Int> in
                self.status = "loading avatar"
                return fetchAvatar(profile.name)
            }
            .recover(on: .main) { error -> Promise<Int> in
                self.status = "\(error)"
                return .value(0)
            }
            .ensure(on: .main) { self.loading = false }
            .ensureThen(on: .main) {
                self.log.append("ensureThen")
                return Guarantee()
            }
            .done(on: .main) { self.status = "avatar \($0)" }
            .catch(on: .main) { self.status = "failed: \($0)" }
            .finally(on: .main) { self.log.append("finally") }
    }

    func loadFriends() {
        fetchAppProfile().map { $0.friends }
            .mapValues { "\($0) (\(self.name))" }
            .compactMapValues { self.friends.contains($0) ? nil : $0 }
            .flatMapValues { [$0, self.name] }
            .filterValues { $0 != self.name }
            .firstValue { !$0.isEmpty && !self.name.isEmpty }
            .map { [$0] }
            .thenMap { fetchAvatar($0 + self.name) }
            .thenFlatMap { Promise.value([$0, self.friends.count]) }
            .done { self.log.append("\($0.count) avatars") }
            .catch(policy: .allErrors) { _ in self.status = "no friends" }
        fetchAppProfile().map(on: nil) { $0.friends }
            .mapValues(on: .main) { "\($0) (\(self.name))" }
            .filterValues(on: .main) { $0 != self.name }
            .thenMap(on: .main) { fetchAvatar($0 + self.name) }
            .done(on: .main) { self.log.append("\($0.count) avatars") }
            .catch(on: .main, policy: .allErrors) { _ in self.status = "no friends" }
    }

    func guarantees() {
        cachedCount().map { $0 + self.friends.count }
            .then { Guarantee.value($0 + self.name.count) }
            .get { self.log.append("\($0)") }
            .done { self.status = "\($0)" }
        cachedCount().map { value -> Int in
            self.log.append("mapping")
            print(value)
            return value
        }.done { _ in self.loading = false }
        cachedCount().map { [$0, self.friends.count] }
            .mapValues { $0 + self.name.count }
            .sortedValues { $0 < $1 && !self.loading }
            .done { self.log.append("\($0)") }
        cachedCount().map(on: .main) { $0 + self.friends.count }
            .done(on: .main) { self.status = "\($0)" }
        Promise<Void>.value(()).recover { _ in self.status = "never" }
            .done { self.status = "void" }
    }

    /// An explicit queue still takes a queue, for closures that touch no main-actor state.
    func explicitQueues(_ queue: DispatchQueue) {
        fetchAppProfile().map(on: queue) { $0.name.uppercased() }
            .done { self.name = $0 }
            .catch(on: nil) { print($0) }
        fetchAppProfile().map(on: queue, flags: .barrier) { $0.friends.count }
            .done(flags: .barrier) { self.status = "\($0)" }
            .cauterize()
    }
}

/// Outside any actor: a closure marked `@MainActor` is accepted with `on: .main` and without.
@MainActor private var lastShown = ""

private func nonisolatedCaller(queue: DispatchQueue) {
    fetchAppProfile()
        .map(on: .main) { @MainActor profile in profile.name }
        .done(on: queue) { print($0) }
        .catch(on: .main) { @MainActor error in lastShown = "\(error)" }
    fetchAppProfile()
        .done { @MainActor profile in lastShown = profile.name }
        .catch { @MainActor _ in lastShown = "?" }
        .finally { @MainActor in lastShown += "." }
    fetchAppProfile().done(on: .main, flags: .barrier) { print($0.name) }.catch { _ in }
    fetchAppProfile().done(on: nil) { print($0.name) }.catch { _ in }
    fetchAppProfile().done(on: .global()) { print($0.name) }.catch { _ in }
    fetchAppProfile().done { print($0.name) }.catch { print($0) }
}

/// A guarantee's `on: .main` forms keep the chain a guarantee, whatever the closure's shape.
@MainActor
private final class CountModel {
    var count = 0

    func refresh() {
        let done: Guarantee<Void> = cachedCount().done(on: .main) { value in
            self.count = value
            print(value)
        }
        let mapped: Guarantee<Int> = cachedCount().map(on: .main) { value in
            self.count += 1
            print(value)
            return value
        }
        let chained: Guarantee<Int> = cachedCount().then(on: .main) { value in
            self.count = value
            print(value)
            return Guarantee.value(value)
        }
        let got: Guarantee<Int> = cachedCount().get(on: .main) { value in
            self.count = value
            print(value)
        }
        let plain: Guarantee<Void> = cachedCount().done { value in
            self.count = value
            print(value)
        }
        _ = (done, mapped, chained, got, plain)
    }
}
