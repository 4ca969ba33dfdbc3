import Dispatch
import Pledge
import Testing

/// Task-locals of this suite's, named with `conf.propagate` once, as a server names its request id
/// and trace context at start-up.
enum RequestScope {
    @TaskLocal static var id: String?
    @TaskLocal static var unnamed: String?
    @TaskLocal static var attempt: Int = 0

    /// Names the task-locals; naming them again names them once.
    static let named: Void = {
        conf.propagate(RequestScope.$id)
        conf.propagate(RequestScope.$attempt)
    }()
}

/// An actor whose handlers read the task-local.
private actor Ledger {
    func read(_ promise: Promise<Int>) -> Promise<String?> {
        promise.map { _ in
            self.assertIsolated()
            return RequestScope.id
        }
    }
}

/// A handler written on the main actor: it runs on the main queue, isolated to the main actor.
@MainActor
private func readOnTheMainActor(_ promise: Promise<Int>) -> Promise<String?> {
    promise.map { _ in
        MainActor.assertIsolated()
        return RequestScope.id
    }
}

/// Every executor a handler may run on, for ``TaskLocalPropagationTests``.
enum HandlerExecutor: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case defaultQueue, serialQueue, concurrentQueue, inline, dispatcher, actor, mainActor

    var testDescription: String { rawValue }
}

/// A handler sees the named task-locals as they were bound where it was attached, whichever
/// executor runs it and whichever thread resolves its promise.
@Suite struct TaskLocalPropagationTests {
    init() { RequestScope.named }

    /// The handler is attached in the request, and its promise resolved later by a thread with
    /// a different binding of its own: the attaching side's value wins.
    @Test(arguments: HandlerExecutor.allCases)
    func aHandlerSeesTheValueBoundWhereItWasAttached(_ executor: HandlerExecutor) async throws {
        let (promise, resolver) = Promise<Int>.pending()
        let ledger = Ledger()
        let seen: Promise<String?> = await RequestScope.$id.withValue("request-1") { () async -> Promise<String?> in
            switch executor {
            case .defaultQueue: promise.map { _ in RequestScope.id }
            case .serialQueue: promise.map(on: TestQueues.serial("locals")) { _ in RequestScope.id }
            case .concurrentQueue: promise.map(on: TestQueues.concurrent("locals")) { _ in RequestScope.id }
            case .inline: promise.map(on: nil) { _ in RequestScope.id }
            case .dispatcher: promise.map(on: CountingDispatcher("locals")) { _ in RequestScope.id }
            case .actor: await ledger.read(promise)
            case .mainActor: await readOnTheMainActor(promise)
            }
        }
        DispatchQueue.global().async {
            RequestScope.$id.withValue("resolver") { resolver.fulfill(1) }
        }
        let value = try await seen.async()
        #expect(value == "request-1")
    }

    @Test func everyStepOfAChainSeesIt() async throws {
        let values = try await RequestScope.$id.withValue("chain") {
            firstly { after(seconds: 0.001) }
                .map { RequestScope.id }
                .then(on: TestQueues.serial("locals.then")) { first in
                    // A chain built inside a handler carries the value on too.
                    Promise.value(first).map(on: TestQueues.serial("locals.inner")) { [$0, RequestScope.id] }
                }
                .get { _ in }
        }.async()
        #expect(values == ["chain", "chain"])
    }

    @Test func aNonOptionalTaskLocalIsCarriedToo() async throws {
        let (promise, resolver) = Promise<Int>.pending()
        let seen = RequestScope.$attempt.withValue(3) { promise.map { _ in RequestScope.attempt } }
        resolver.fulfill(1)
        #expect(try await seen.async() == 3)
    }

    @Test func aTaskLocalNotNamedIsNotCarried() async throws {
        let (promise, resolver) = Promise<Int>.pending()
        let seen = RequestScope.$unnamed.withValue("not named") { promise.map { _ in RequestScope.unnamed } }
        resolver.fulfill(1)
        #expect(try await seen.async() == nil)
    }

    @Test func pipeCatchEnsureAndFinallySeeIt() async {
        let seen = Locked<[String?]>([])
        let (done, resolve) = Guarantee<Void>.pending()
        let (promise, resolver) = Promise<Int>.pending()
        RequestScope.$id.withValue("cleanup") {
            promise.pipe { _ in seen.withLock { $0.append(RequestScope.id) } }
            promise.ensure { seen.withLock { $0.append(RequestScope.id) } }
                .catch { _ in seen.withLock { $0.append(RequestScope.id) } }
                .finally {
                    seen.withLock { $0.append(RequestScope.id) }
                    resolve(())
                }
        }
        resolver.reject(TestError.boom)
        await done.async()
        #expect(seen.value == ["cleanup", "cleanup", "cleanup", "cleanup"])
    }

    @Test func aPromiseBodyOnAQueueAndALaterRetrySeeIt() async throws {
        let attempts = Locked<[String?]>([])
        let (fromQueue, fromRetry) = try await RequestScope.$id.withValue("work") {
            let queued = DispatchQueue.global().async(.promise) { RequestScope.id }
            let retried = retry(attempts: 3, backoff: .constant(.milliseconds(1))) { () -> Promise<String?> in
                attempts.withLock { $0.append(RequestScope.id) }
                return attempts.value.count < 3 ? Promise(error: TestError.boom) : .value(RequestScope.id)
            }
            return try await (queued.async(), retried.async())
        }
        #expect(fromQueue == "work" && fromRetry == "work")
        #expect(attempts.value == ["work", "work", "work"])
    }

    @Test func aCancelledChainsCleanupSeesIt() async {
        let (done, resolve) = Guarantee<String?>.pending()
        let (promise, _) = Promise<Int>.pending()
        let chained = RequestScope.$id.withValue("cancelled") {
            promise.map { $0 }.ensure { resolve(RequestScope.id) }
        }
        chained.cancel()
        #expect(await done.async() == "cancelled")
    }
}
