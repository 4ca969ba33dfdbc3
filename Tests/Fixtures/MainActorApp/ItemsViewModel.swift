import Dispatch
import Foundation
import Pledge

// App code as Xcode 26 builds it by default (Swift 6, MainActor default isolation,
// NonisolatedNonsendingByDefault, InferIsolatedConformances), written as PromiseKit code is,
// with no annotation and no `on:`. It must build with no diagnostics, and every handler must
// run on the main actor (main.swift checks).

struct Item: Sendable, Equatable {
    let name: String
    var detail = ""
}

/// A callback API answering on another queue, wrapped as PromiseKit code wraps one.
func fetchItems() -> Promise<[Item]> {
    Promise { seal in
        DispatchQueue.global().async {
            seal.fulfill([Item(name: "a"), Item(name: "b")])
        }
    }
}

func fetchDetail(for item: Item) -> Promise<Item> {
    Promise { seal in
        DispatchQueue.global().async {
            seal.fulfill(Item(name: item.name, detail: "detail of \(item.name)"))
        }
    }
}

/// Set on the main queue by main.swift, so that a handler can tell it runs there.
nonisolated let mainQueueKey = DispatchSpecificKey<Bool>()

final class ItemsViewModel {
    private(set) var items: [Item] = []
    private(set) var isLoading = false
    private(set) var failure: Error?
    /// For each handler that ran, whether it ran on the main queue, the main actor's executor
    /// (on Linux, after `dispatchMain()`, not always the main thread).
    private(set) var handlersOnMainQueue: [Bool] = []

    private func record() {
        handlersOnMainQueue.append(DispatchQueue.getSpecific(key: mainQueueKey) == true)
    }

    func load() -> Guarantee<Void> {
        isLoading = true
        let (finished, finish) = Guarantee<Void>.pending()
        firstly {
            fetchItems()
        }.then { items in
            self.record()
            return when(fulfilled: items.map { fetchDetail(for: $0) })
        }.done { items in
            self.record()
            self.items = items
        }.ensure {
            self.record()
            self.isLoading = false
        }.catch { error in
            self.record()
            self.failure = error
        }.finally {
            self.record()
            finish(())
        }
        return finished
    }

    func countItems() async throws -> Int {
        let items = try await fetchItems().map { items in
            self.record()
            return items.count
        }.async()
        record()
        return items
    }
}
