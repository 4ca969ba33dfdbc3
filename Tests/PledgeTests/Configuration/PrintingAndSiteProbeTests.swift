import Dispatch
import Foundation
import Pledge
import Testing

extension ConfigurationTests {
    /// Hostile checks of two debugging aids: printing a promise leaves its rejection unseen, and
    /// the site reported for a dropped chain is the caller's, however Pledge built the chain.
    @Suite struct PrintingAndSiteProbeTests {
        static let file = "PledgeTests/PrintingAndSiteProbeTests.swift"

        @Test func everyWayOfPrintingAPendingThenRejectedPromiseLeavesItsRejectionUnseen() {
            LogCapture.capture { log in
                do {
                    let (promise, resolver) = Promise<Int>.pending()
                    var text = "\(promise) \(String(describing: promise)) \(String(reflecting: promise))"
                    print(promise, to: &text)
                    debugPrint(promise, to: &text)
                    dump(promise, to: &text)
                    _ = Mirror(reflecting: promise).children.map { "\($0.value)" }
                    resolver.reject(TestError.numbered(9_901))
                    text += "\(promise) \(String(describing: promise)) \(String(reflecting: promise)) \([promise])"
                    print(promise, to: &text)
                    debugPrint(promise, to: &text)
                    dump(promise, to: &text)
                    dump([promise], to: &text)
                    let children = Mirror(reflecting: promise).children.map { "\($0.value)" }
                    #expect(children.count == 1)
                    #expect(text.contains("numbered(9901)"))
                }
                #expect(log.rejections(9_901, within: 60) == 1)
            }
        }

        @Test func everyStateReadOfARejectedPromiseSeesTheError() {
            LogCapture.capture { log in
                do {
                    func rejected() -> Promise<Int> { Promise(error: TestError.numbered(9_902)) }
                    _ = rejected().result
                    _ = rejected().value
                    _ = rejected().error
                    _ = rejected().isRejected
                    _ = rejected().isFulfilled
                    _ = rejected().isResolved
                    _ = rejected().isPending
                }
                #expect(log.rejections(9_902, within: 0.5) == 0)
            }
        }

        @Test func printingWhileAnotherThreadRejectsStillReportsEveryRejection() {
            // Meant to run under --sanitize=thread too: the description reads the box while the
            // other thread seals it.
            let rounds = 200
            LogCapture.capture { log in
                for _ in 0..<rounds {
                    let (promise, resolver) = Promise<Int>.pending()
                    let ready = DispatchSemaphore(value: 0)
                    let done = DispatchSemaphore(value: 0)
                    DispatchQueue.global().async {
                        ready.signal()
                        resolver.reject(TestError.numbered(9_903))
                        done.signal()
                    }
                    ready.wait()
                    for _ in 0..<4 {
                        var text = "\(promise)\(String(reflecting: promise))"
                        dump(promise, to: &text)
                        #expect(text.hasPrefix("Promise("))
                    }
                    #expect(done.wait(timeout: .now() + 60) == .success)
                }
                #expect(log.rejections(9_903, expecting: rounds, within: 60) == rounds)
            }
        }

        @Test(.debugBuildsOnly) func aWhenOfARaceIsReportedOnceAtTheWhensLine() {
            #if DEBUG
                LogCapture.capture { log in
                    let whenLine: Int
                    do {
                        let raced = race(Promise<Int>(error: TestError.numbered(9_904)), Promise<Int>.pending().promise)
                        whenLine = #line + 1
                        _ = when(fulfilled: raced, Promise.value(1))
                        _ = raced
                    }
                    #expect(log.rejections(9_904, within: 60) == 1)
                    #expect(log.rejectionSites(9_904) == [CreationSite(fileID: Self.file, line: whenLine)])
                }
            #endif
        }

        @Test func thenMapAndThenFlatMapReportTheLineWhereTheUsersChainBegan() {
            // `Promise.value` records no site, so each chain begins with a promise that does.
            #if DEBUG
                LogCapture.capture { log in
                    let line = #line
                    do {
                        _ = Promise { $0.fulfill([1, 2]) }.thenMap(on: nil) { _ in
                            Promise<Int>(error: TestError.numbered(9_905))
                        }
                        _ = Promise { $0.fulfill([1, 2]) }.thenFlatMap(on: nil) { _ in
                            Promise<[Int]>(error: TestError.numbered(9_906))
                        }
                        _ = Guarantee { $0([1, 2]) }.thenMap(on: nil) { _ in
                            Promise<Int>(error: TestError.numbered(9_907))
                        }
                        _ = Promise { $0.fulfill([1]) }.map(on: nil) { $0 }.thenMap(on: nil) { _ in
                            race(Promise<Int>(error: TestError.numbered(9_908)))
                        }
                    }
                    for (offset, number) in [(2, 9_905), (5, 9_906), (8, 9_907), (11, 9_908)] {
                        #expect(log.rejections(number, within: 60) == 1, "\(number)")
                        let sites = log.rejectionSites(number)
                        #expect(sites == [CreationSite(fileID: Self.file, line: line + offset)], "\(number)")
                    }
                }
            #endif
        }
    }
}
