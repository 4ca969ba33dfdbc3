import Dispatch
import PromiseKit

// Prints the same with PromiseKit 8.2 and, once migrated, with Pledge (expected-output.txt).
// Handlers run on a global queue, so that `wait()` on the main thread never waits for itself.

conf.Q = (map: DispatchQueue.global(), return: DispatchQueue.global())
// PromiseKit warns of `wait()` on the main thread, which a tool does on purpose; Pledge does not
// (a difference the migration guide documents). Neither prints anything else here.
conf.logHandler = { _ in }

let done = DispatchSemaphore(value: 0)
loadCount("41") { result in
    print("loadCount: \(describe(result)), value \(result.valueIfAny ?? -1)")
    done.signal()
}
done.wait()
loadCount("x") { result in
    print("loadCount: \(result.valueIfAny == nil ? "no value" : "a value")")
    done.signal()
}
done.wait()

print("parsed: \(countParsed(["1", "two", "3"]).wait())")
print("chain: \((try? chain("21").wait()) ?? "failed")")
print("chain: \((try? chain("x").wait()) ?? "failed")")
print("swift result: \(describe(Swift.Result { try parseWithSwiftResult("7").wait() }.promiseResult))")
