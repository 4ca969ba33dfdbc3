// A client written in Swift 5 language mode, the way PromiseKit code is written: closures
// mutate captured variables, values are non-Sendable classes, and nothing is annotated. It
// must keep compiling after `import PromiseKit` becomes `import Pledge`.

import Dispatch
import Pledge

final class Session {
    var token: String?
    var requests = 0
}

final class ViewModel {
    var title = ""
    var items: [String] = []
    var isLoading = false
    let session = Session()

    func load() {
        isLoading = true
        var attempts = 0
        firstly { () -> Promise<Session> in
            attempts += 1
            return login()
        }.then { session -> Promise<[String]> in
            session.requests += 1
            return self.fetchItems(session)
        }.done { items in
            self.items = items
            self.title = "\(items.count) items after \(attempts) attempt(s)"
        }.ensure {
            self.isLoading = false
        }.catch { error in
            self.title = "error: \(error)"
        }
    }

    func login() -> Promise<Session> {
        return Promise { seal in
            DispatchQueue.global().async {
                self.session.token = "secret"
                seal.fulfill(self.session)
            }
        }
    }

    func fetchItems(_ session: Session) -> Promise<[String]> {
        let (promise, resolver) = Promise<[String]>.pending()
        DispatchQueue.global().async {
            resolver.resolve(["a", "b", session.token ?? "?"], nil)
        }
        return promise
    }

    /// A chain of closures on a guarantee stays a chain of guarantees, as in PromiseKit, even
    /// with several statements that take `Any` (as `print` does).
    func guaranteeChainsStayGuarantees() {
        let chain = Guarantee.value(1).map { value in
            print(value)
            return value + 1
        }.done { value in
            print(value)
        }
        let _: Guarantee<Void> = chain
    }

    func counter() -> Guarantee<Int> {
        var total = 0
        return Guarantee { resolve in
            total += 1
            resolve(total)
        }.map { value -> Int in
            total += value
            return total
        }
    }

    func results() -> Promise<Session> {
        let (guarantee, resolve) = Guarantee<Session>.pending()
        resolve(session)
        return Promise(guarantee).get { $0.requests += 1 }.recover { _ in Promise.value(Session()) }
    }
}

func useMainQueueLikePromiseKit() {
    conf.Q = (map: DispatchQueue.main, return: DispatchQueue.main)
    conf.Q = (map: PMKConfiguration.defaultQueue, return: PMKConfiguration.defaultQueue)
}
