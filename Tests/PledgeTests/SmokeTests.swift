import Dispatch
import Foundation
import Pledge
import Testing

@Test func smoke() throws {
    #expect(try Promise.value(1).map(on: nil) { $0 + 1 }.wait() == 2)
}

@Test func deep() throws {
    let (root, resolver) = Promise<Int>.pending()
    var tail = root
    for _ in 0..<1_000_000 { tail = tail.map(on: nil) { $0 + 1 } }
    let done = DispatchSemaphore(value: 0)
    let thread = Thread { resolver.fulfill(0); done.signal() }
    thread.stackSize = 512 * 1024
    thread.start()
    done.wait()
    #expect(tail.value == 1_000_000)
}
