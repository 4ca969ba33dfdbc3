// The samples of Sources/Pledge/Pledge.docc/GettingStarted.md, compiled by every build.
// `.ci/check-doc-samples` fails when a sample there is missing here: edit both together.

import Dispatch
import Pledge
import Synchronization

enum GettingStartedSamples {
    // swift-format-ignore
    static let manifest = Manifest.Package(
        name: "MyApp",
        // Package.swift, in a package next to the Pledge folder
        platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
        dependencies: [
            .package(path: "../Pledge"),
        ],
        targets: [
            .target(name: "MyApp", dependencies: [.product(name: "Pledge", package: "Pledge")]),
        ]
    )

    static func firstChain() {
        func printOrderCount(userID: Int) {
            firstly {
                fetchUser(id: userID)
            }.then { user in
                fetchOrders(for: user)
            }.map { orders in
                orders.count
            }.ensure {
                log("lookup finished")
            }.done { count in
                print("\(count) orders")
            }.catch { error in
                print("Failed: \(error)")
            }.finally {
                print("the chain is over")
            }
        }
        _ = printOrderCount
    }

    static func queues() {
        fetchUser(id: 42)
            .map(on: .global()) { user in summarize(user) }  // a concurrent queue for heavy work
            .done(on: nil) { summary in print(summary) }  // inline, on the thread that resolved it
            .catch { error in print(error) }  // the default queue
    }

    static func wrapping() {
        func fetchWeather(city: String) -> Promise<Weather> {
            Promise { seal in
                weatherService.forecast(for: city) { weather, error in
                    seal.resolve(weather, error)  // a value fulfils, an error rejects
                }
            }
        }
        _ = fetchWeather
    }

    static func wrappingResult() {
        func fetchForecast(city: String) -> Promise<Weather> {
            Promise { seal in
                weatherService.fetch(city: city) { result in seal.resolve(result) }
            }
        }
        _ = fetchForecast
    }

    final class PendingReplies: Sendable {
        private let waiting = Mutex<[Int: Resolver<String>]>([:])

        func expectReply(to requestID: Int) -> Promise<String> {
            let (promise, resolver) = Promise<String>.pending()
            waiting.withLock { $0[requestID] = resolver }
            return promise
        }

        func received(_ reply: String, for requestID: Int) {
            let resolver = waiting.withLock { $0.removeValue(forKey: requestID) }
            resolver?.fulfill(reply)  // outside the lock: the promise's handlers may run here
        }
    }

    static func throwing() {
        enum OrderError: Error {
            case noOrders
        }

        func firstOrder(of user: User) -> Promise<Order> {
            fetchOrders(for: user).map { orders in
                guard let first = orders.first else { throw OrderError.noOrders }
                return first
            }
        }
        _ = firstOrder
    }

    static func recovering() {
        func orderCount(for user: User) -> Promise<Int> {
            fetchOrders(for: user).map { $0.count }.recover { error -> Promise<Int> in
                guard let error = error as? HTTPError, error.status == 404 else { throw error }
                return Promise.value(0)  // no orders yet
            }
        }
        _ = orderCount
    }

    static func matchingErrors() {
        fetchProfile(7).timeout(seconds: 5).done { show($0) }.catch { error in
            switch error {
            case PMKError.timedOut:
                log("the profile service is slow")
            case let error as HTTPError where error.isClientError:
                log("bad request: \(error.status)")
            default:
                showError(error)
            }
        }
    }

    static func guarantees() {
        func greeting(for id: Int) -> Guarantee<String> {
            fetchUser(id: id)
                .map { "Hello, \($0.name)" }
                .recover { _ in Guarantee.value("Hello, stranger") }
        }

        greeting(for: 42).done { print($0) }  // no catch needed
    }

    static func awaiting() {
        func loadDashboard(userID: Int) async throws -> Dashboard {
            let user = try await fetchUser(id: userID).async()
            let greeting = await greeting(for: userID).async()
            return Dashboard(user: user, greeting: greeting)
        }
        _ = loadDashboard
    }

    static func asyncToPromise() {
        func fetchUser(id: Int) -> Promise<User> {
            Promise { try await client.user(id: id) }
        }
        _ = fetchUser
    }

    static func commandLineTool() throws {
        // main.swift
        let user = try fetchUser(id: 42).wait()
        print("Hello, \(user.name)")
    }

    static func logHandler() {
        conf.logHandler = { event in
            logger.warning("pledge: \(event.message)")
        }
    }

    static func unhandledRejections() {
        conf.logHandler = { event in
            if case .unhandledRejection(let error, let site) = event {
                logger.error("unhandled \(error), chain made at \(site?.description ?? "?")")
            }
        }
    }

    static func longPending() {
        #if DEBUG
            conf.longPendingThreshold = .seconds(30)
        #endif

        func dumpPendingPromises() {
            for promise in pendingPromises().prefix(10) {
                print(promise)  // pending for 31.2 seconds, made at App/Sync.swift:42
            }
        }
        dumpPendingPromises()
    }
}
