import Pledge
import Testing

extension LogCapture {
    /// The sites of the unhandled rejections with `error` that the current test's own code
    /// logged, one per event.
    func rejectionSites(of error: PMKError) -> [CreationSite?] {
        eventsFromThisTest(ofKind: .unhandledRejection).compactMap { event in
            guard case .unhandledRejection(let logged, let site) = event, logged as? PMKError == error else {
                return nil
            }
            return .some(site)
        }
    }
}

extension ConfigurationTests {
    /// The debug `CreationSite` of the result of `when`, `race` and `retry`: the line that called
    /// them, so that a dropped, rejected result says where it came from.
    ///
    /// Each call is dropped in the statement that makes it, so its rejection is reported at once,
    /// on the test's thread; the inputs are settled already, and everything runs inline.
    @Suite struct CombinatorSiteTests {
        static let file = "PledgeTests/CombinatorSiteTests.swift"

        /// Drops `result` and returns the line of the call: the line of the combinator call
        /// written inside it.
        static func dropped<R>(_ result: R, line: Int = #line) -> Int {
            line
        }

        static func site(_ line: Int) -> CreationSite {
            CreationSite(fileID: file, line: line)
        }

        @Test(.debugBuildsOnly) func whenFulfilledOverAnArrayOrAVariadicListNamesTheLineOfTheCall() {
            #if DEBUG
                LogCapture.capture { log in
                    let typed = [Promise<Int>(error: TestError.numbered(9_801)), .value(1)]
                    let void = Promise<Void>(error: TestError.numbered(9_802))
                    let variadic = Promise<Void>(error: TestError.numbered(9_803))
                    let mixed: [any Thenable] = [Promise<Int>(error: TestError.numbered(9_804)), Guarantee.value("")]
                    let lines = [
                        (9_801, Self.dropped(when(fulfilled: typed))),
                        (9_802, Self.dropped(when(fulfilled: [void, .value(())]))),
                        (9_803, Self.dropped(when(fulfilled: variadic, .value(())))),
                        (9_804, Self.dropped(when(fulfilled: mixed))),
                    ]
                    for (number, line) in lines {
                        #expect(log.rejections(number, within: 60) == 1, "\(number)")
                        #expect(log.rejectionSites(number) == [Self.site(line)], "\(number)")
                    }
                }
            #endif
        }

        @Test(.debugBuildsOnly) func whenFulfilledOverATupleNamesTheLineOfTheCall() {
            #if DEBUG
                LogCapture.capture { log in
                    let a = Promise<Int>(error: TestError.numbered(9_811))
                    let b = Promise<Int>(error: TestError.numbered(9_812))
                    let c = Promise<Int>(error: TestError.numbered(9_813))
                    let one = Promise.value(1)
                    let lines = [
                        (9_811, Self.dropped(when(fulfilled: a, Guarantee.value("")))),
                        (9_812, Self.dropped(when(fulfilled: one, b, Guarantee.value("")))),
                        (9_813, Self.dropped(when(fulfilled: one, one, one, one, c))),
                    ]
                    for (number, line) in lines {
                        #expect(log.rejections(number, within: 60) == 1, "\(number)")
                        #expect(log.rejectionSites(number) == [Self.site(line)], "\(number)")
                    }
                }
            #endif
        }

        @Test(.debugBuildsOnly) func whenFulfilledConcurrentlyNamesTheLineOfTheCallEvenForBadInput() {
            #if DEBUG
                LogCapture.capture { log in
                    let inputs = [Promise.value(1), Promise<Int>(error: TestError.numbered(9_821))]
                    let line = Self.dropped(when(fulfilled: inputs.makeIterator(), concurrently: 1))
                    #expect(log.rejections(9_821, within: 60) == 1)
                    #expect(log.rejectionSites(9_821) == [Self.site(line)])

                    let badLine = Self.dropped(when(fulfilled: inputs.makeIterator(), concurrently: 0))
                    #expect(log.rejectionSites(of: .badInput) == [Self.site(badLine)])
                }
            #endif
        }

        @Test(.debugBuildsOnly) func raceNamesTheLineOfTheCallEvenForBadInput() {
            #if DEBUG
                LogCapture.capture { log in
                    let a = Promise<Int>(error: TestError.numbered(9_831))
                    let b = Promise<Int>(error: TestError.numbered(9_832))
                    let lines = [
                        (9_831, Self.dropped(race(a, Promise.value(1)))),
                        (9_832, Self.dropped(race([b, Promise.value(1)]))),
                    ]
                    for (number, line) in lines {
                        #expect(log.rejections(number, within: 60) == 1, "\(number)")
                        #expect(log.rejectionSites(number) == [Self.site(line)], "\(number)")
                    }

                    let badLine = Self.dropped(race([Promise<Int>]()))
                    #expect(log.rejectionSites(of: .badInput) == [Self.site(badLine)])
                }
            #endif
        }

        @Test(.debugBuildsOnly) func raceFulfilledNamesTheLineOfTheCallEvenForBadInput() {
            #if DEBUG
                LogCapture.capture { log in
                    let inputs = [Promise<Int>(error: TestError.boom), Promise<Int>(error: TestError.other)]
                    let line = Self.dropped(race(fulfilled: inputs))
                    #expect(log.rejectionSites(of: .noWinner) == [Self.site(line)])

                    let badLine = Self.dropped(race(fulfilled: [Promise<Int>]()))
                    #expect(log.rejectionSites(of: .badInput) == [Self.site(badLine)])
                }
            #endif
        }

        @Test(.debugBuildsOnly) func retryNamesTheLineOfTheCallEvenForBadInput() {
            #if DEBUG
                LogCapture.capture { log in
                    let line = Self.dropped(retry(attempts: 1) { Promise<Int>(error: TestError.numbered(9_841)) })
                    #expect(log.rejections(9_841, within: 60) == 1)
                    #expect(log.rejectionSites(9_841) == [Self.site(line)])

                    let badLine = Self.dropped(retry(attempts: 0) { Promise.value(1) })
                    #expect(log.rejectionSites(of: .badInput) == [Self.site(badLine)])
                }
            #endif
        }

        /// A guarantee cannot be rejected, but a chain that begins with one carries its site.
        @Test(.debugBuildsOnly) func aChainAfterAGuaranteeCombinatorNamesTheLineOfTheCall() {
            #if DEBUG
                LogCapture.capture { log in
                    let line = #line
                    do {
                        let (p, g) = (Promise.value(1), Guarantee.value(1))
                        _ = when(resolved: p).map(on: nil) { _ -> Int in throw TestError.numbered(9_851) }
                        _ = when(guarantees: [g]).map(on: nil) { _ -> Int in throw TestError.numbered(9_852) }
                        _ = when(g, g).map(on: nil) { _ -> Int in throw TestError.numbered(9_853) }
                        _ = when(guarantees: g, g).map(on: nil) { _ -> Int in throw TestError.numbered(9_854) }
                        _ = race(g, g).map(on: nil) { _ -> Int in throw TestError.numbered(9_855) }
                        _ = when(resolved: [g].makeIterator(), concurrently: 1).map(on: nil) { _ -> Int in
                            throw TestError.numbered(9_856)
                        }
                    }
                    for (offset, number) in [(3, 9_851), (4, 9_852), (5, 9_853), (6, 9_854), (7, 9_855), (8, 9_856)] {
                        #expect(log.rejections(number, within: 60) == 1, "\(number)")
                        #expect(log.rejectionSites(number) == [Self.site(line + offset)], "\(number)")
                    }
                }
            #endif
        }
    }
}
