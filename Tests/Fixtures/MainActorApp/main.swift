import Dispatch
import Foundation
import Pledge

// Runs the view model of ItemsViewModel.swift and fails unless every handler ran on the main
// queue, in order, with the values expected. `.ci/run` runs it.

DispatchQueue.main.setSpecific(key: mainQueueKey, value: true)
let model = ItemsViewModel()
await model.load().async()
let count = try await model.countItems()

let expected = [Item(name: "a", detail: "detail of a"), Item(name: "b", detail: "detail of b")]
guard model.items == expected, count == 2, !model.isLoading, model.failure == nil,
    model.handlersOnMainQueue == [true, true, true, true, true, true]
else {
    print("MainActorApp: unexpected state: \(model.items), \(count), \(model.handlersOnMainQueue)")
    exit(1)
}
print("MainActorApp: every handler ran on the main actor")
