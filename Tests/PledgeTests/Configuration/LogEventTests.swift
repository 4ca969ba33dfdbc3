import Dispatch
import Pledge
import Testing

@Suite struct LogEventTests {
    static let allEvents: [LogEvent] = [
        .waitOnMainThread, .pendingPromiseDeallocated(site: nil), .pendingGuaranteeDeallocated(site: nil),
        .cauterized(TestError.boom), .nilDispatchQueueWithFlags, .waitOnHandlerQueue, .guaranteeReturnedSelf,
        .badInput("a message"), .unhandledRejection(TestError.boom, site: nil),
    ]

    @Test func everyEventHasAOneLineMessageSignedByPledge() {
        for event in Self.allEvents {
            #expect(event.message.hasPrefix("Pledge:"), "\(event.kind)")
            #expect(!event.message.contains("\n"), "\(event.kind)")
        }
    }

    @Test func messagesAndDescriptionsAreDistinctPerEvent() {
        #expect(Set(Self.allEvents.map(\.message)).count == Self.allEvents.count)
        #expect(Set(Self.allEvents.map(\.description)).count == Self.allEvents.count)
    }

    /// Events print their names, as PromiseKit's do, and PromiseKit code writes the lost-promise
    /// events without a site.
    @Test func eventsPrintTheirNamesAsPromiseKitsDo() {
        #expect("\(LogEvent.waitOnMainThread)" == "waitOnMainThread")
        #expect("\(LogEvent.pendingPromiseDeallocated)" == "pendingPromiseDeallocated")
        #expect("\(LogEvent.pendingGuaranteeDeallocated)" == "pendingGuaranteeDeallocated")
        let site = CreationSite(fileID: "App/Loader.swift", line: 7)
        #expect("\(LogEvent.pendingPromiseDeallocated(site: site))" == "pendingPromiseDeallocated")
        #expect("\(LogEvent.cauterized(TestError.boom))" == "cauterized(boom)")
        #expect("\(LogEvent.nilDispatchQueueWithFlags)" == "nilDispatchQueueWithFlags")
        guard case .pendingPromiseDeallocated(site: nil) = LogEvent.pendingPromiseDeallocated else {
            Issue.record("the static member is the case without a site")
            return
        }
    }

    @Test func theCauterizedDescriptionIncludesTheError() {
        #expect(LogEvent.cauterized(TestError.numbered(77)).message.contains("numbered(77)"))
    }

    @Test func theUnhandledRejectionDescriptionIncludesTheErrorAndTheSite() {
        let site = CreationSite(fileID: "App/Loader.swift", line: 12)
        let description = LogEvent.unhandledRejection(TestError.numbered(5), site: site).message
        #expect(description.contains("numbered(5)"))
        #expect(description.hasSuffix("(made at App/Loader.swift:12)"))
        #expect(!LogEvent.unhandledRejection(TestError.boom, site: nil).message.contains("made at"))
    }

    @Test func thePendingDeallocatedDescriptionsIncludeTheSite() {
        let site = CreationSite(fileID: "App/Loader.swift", line: 7)
        #expect(LogEvent.pendingPromiseDeallocated(site: site).message.hasSuffix("(made at App/Loader.swift:7)"))
        #expect(LogEvent.pendingGuaranteeDeallocated(site: site).message.hasSuffix("(made at App/Loader.swift:7)"))
    }

    @Test func theBadInputDescriptionIncludesItsMessage() {
        #expect(LogEvent.badInput("race() was given nothing").message.contains("race() was given nothing"))
    }
}

extension ConfigurationTests {
    /// Each misuse is reported through `conf.logHandler`. These tests capture it, so they live in
    /// the serialized suite; they count only the events their own code logged synchronously.
    @Suite struct LogEventEmissionTests {
        // MARK: pendingPromiseDeallocated

        @Test func releasingAnUnresolvedResolverLogsPendingPromiseDeallocated() {
            LogCapture.capture { log in
                do {
                    let (promise, resolver) = Promise<Int>.pending()
                    _ = (promise, resolver)
                }

                #expect(log.eventsFromThisTest(ofKind: .pendingPromiseDeallocated).count == 1)
            }
        }

        @Test func aPromiseWhoseResolverBodyNeitherResolvesNorKeepsTheResolverLogsPendingPromiseDeallocated() {
            LogCapture.capture { log in
                let promise = Promise<Int> { _ in }

                #expect(promise.isPending)
                #expect(log.eventsFromThisTest(ofKind: .pendingPromiseDeallocated).count == 1)
            }
        }

        @Test func releasingAResolvedResolverLogsNothing() {
            LogCapture.capture { log in
                do {
                    let (_, fulfilled) = Promise<Int>.pending()
                    fulfilled.fulfill(1)
                    let (_, rejected) = Promise<Int>.pending()
                    rejected.reject(TestError.boom)
                    _ = Promise<Int> { $0.fulfill(2) }
                }

                #expect(log.eventsFromThisTest(ofKind: .pendingPromiseDeallocated).isEmpty)
            }
        }

        @Test func aResolverKeptByItsPromiseBodyLogsOnlyWhenReleasedUnresolved() {
            LogCapture.capture { log in
                let kept = Locked<Resolver<Int>?>(nil)
                let promise = Promise<Int> { kept.value = $0 }
                #expect(log.eventsFromThisTest(ofKind: .pendingPromiseDeallocated).isEmpty)

                kept.value = nil

                #expect(promise.isPending)
                #expect(log.eventsFromThisTest(ofKind: .pendingPromiseDeallocated).count == 1)
            }
        }

        // MARK: pendingGuaranteeDeallocated

        @Test func releasingAnUncalledGuaranteeResolveFunctionLogsPendingGuaranteeDeallocated() {
            LogCapture.capture { log in
                do {
                    let (guarantee, resolve) = Guarantee<Int>.pending()
                    _ = (guarantee, resolve)
                }

                #expect(log.eventsFromThisTest(ofKind: .pendingGuaranteeDeallocated).count == 1)
            }
        }

        @Test func aGuaranteeWhoseBodyIgnoresItsResolveFunctionLogsPendingGuaranteeDeallocated() {
            LogCapture.capture { log in
                let guarantee = Guarantee<Int> { _ in }

                #expect(guarantee.isPending)
                #expect(log.eventsFromThisTest(ofKind: .pendingGuaranteeDeallocated).count == 1)
            }
        }

        @Test func releasingACalledGuaranteeResolveFunctionLogsNothing() {
            LogCapture.capture { log in
                do {
                    let (_, resolve) = Guarantee<Int>.pending()
                    resolve(1)
                    _ = Guarantee<Int> { $0(2) }
                }

                #expect(log.eventsFromThisTest(ofKind: .pendingGuaranteeDeallocated).isEmpty)
                #expect(log.eventsFromThisTest(ofKind: .pendingPromiseDeallocated).isEmpty)
            }
        }

        // MARK: cauterized

        @Test func cauterizeLogsTheErrorItDrops() {
            LogCapture.capture { log in
                Promise<Int>(error: TestError.numbered(12)).cauterize()

                let events = log.eventsFromThisTest(ofKind: .cauterized)
                #expect(events.count == 1)
                if case .cauterized(let error)? = events.first {
                    #expect(error as? TestError == .numbered(12))
                }
            }
        }

        @Test func cauterizeLogsAnErrorFromLaterInTheChain() {
            LogCapture.capture { log in
                let (promise, resolver) = Promise<Int>.pending()
                promise.map(on: nil) { _ -> Int in throw TestError.numbered(13) }.cauterize()

                resolver.fulfill(1)

                let events = log.eventsFromThisTest(ofKind: .cauterized)
                #expect(events.count == 1)
                if case .cauterized(let error)? = events.first {
                    #expect(error as? TestError == .numbered(13))
                }
            }
        }

        @Test func cauterizeLogsNothingForAFulfilment() {
            LogCapture.capture { log in
                Promise.value(1).cauterize()

                #expect(log.eventsFromThisTest(ofKind: .cauterized).isEmpty)
            }
        }

        @Test func cauterizeLetsACancellationPassSilentlyByDefault() {
            LogCapture.capture { log in
                Promise<Int>(error: PMKError.cancelled).cauterize()

                #expect(log.eventsFromThisTest(ofKind: .cauterized).isEmpty)
            }
        }

        // MARK: nilDispatchQueueWithFlags

        @Test func flagsWithoutAQueueAreLoggedByEveryOperator() {
            LogCapture.capture { log in
                let fulfilled = Promise.value(1)
                let rejected = Promise<Int>(error: TestError.boom)
                let guarantee = Guarantee.value(1)

                _ = fulfilled.then(on: nil, flags: .barrier) { Promise.value($0) }
                _ = fulfilled.map(on: nil, flags: .barrier) { $0 }
                _ = fulfilled.compactMap(on: nil, flags: .barrier) { $0 }
                _ = fulfilled.done(on: nil, flags: .barrier) { _ in }
                _ = fulfilled.get(on: nil, flags: .barrier) { _ in }
                _ = fulfilled.tap(on: nil, flags: .barrier) { _ in }
                _ = fulfilled.ensure(on: nil, flags: .barrier) {}
                _ = fulfilled.ensureThen(on: nil, flags: .barrier) { Guarantee() }
                _ = rejected.recover(on: nil, flags: .barrier, policy: .allErrors) { _ in Promise.value(1) }
                rejected.recover(on: nil, flags: .barrier) { _ in Guarantee.value(1) }
                rejected.catch(on: nil, flags: .barrier, policy: .allErrors) { _ in }
                    .finally(on: nil, flags: .barrier) {}
                _ = guarantee.map(on: nil, flags: .barrier) { $0 }
                guarantee.done(on: nil, flags: .barrier) { _ in }
                _ = guarantee.get(on: nil, flags: .barrier) { _ in }
                guarantee.then(on: nil, flags: .barrier) { Guarantee.value($0) }

                #expect(log.eventsFromThisTest(ofKind: .nilDispatchQueueWithFlags).count == 16)
            }
        }

        @Test func flagsWithAQueueAreNotLogged() {
            LogCapture.capture { log in
                let queue = TestQueues.serial("flags.queue")

                let mapped = Promise.value(1).map(on: queue, flags: .barrier) { $0 + 1 }

                #expect(mapped.settledValue() == 2)
                #expect(log.eventsFromThisTest(ofKind: .nilDispatchQueueWithFlags).isEmpty)
            }
        }

        // MARK: guaranteeReturnedSelf

        @Test func aGuaranteeThenReturningItsOwnGuaranteeIsLoggedLeftPendingAndFreed() {
            LogCapture.capture { log in
                let counter = LifetimeCounter()
                let weakResult: WeakReference<Guarantee<Int>>
                do {
                    let (head, resolve) = Guarantee<Int>.pending()
                    let slot = Locked<Guarantee<Int>?>(nil)
                    let result = head.then(on: nil) { _ in slot.value ?? Guarantee.value(0) }
                    slot.value = result
                    let tracker = LifetimeTracker(counter)
                    result.done(on: nil) { _ in tracker.touch() }
                    weakResult = WeakReference(result)

                    resolve(1)

                    #expect(result.isPending)
                    slot.value = nil
                }

                #expect(log.eventsFromThisTest(ofKind: .guaranteeReturnedSelf).count == 1)
                #expect(weakResult.object == nil)
                #expect(counter.alive == 0)
            }
        }

        @Test func aRecoverReturningItsOwnGuaranteeIsLoggedLeftPendingAndFreed() {
            LogCapture.capture { log in
                let weakResult: WeakReference<Guarantee<Int>>
                do {
                    let (head, resolver) = Promise<Int>.pending()
                    let slot = Locked<Guarantee<Int>?>(nil)
                    let result = head.recover(on: nil) { _ in slot.value ?? Guarantee.value(0) }
                    slot.value = result
                    weakResult = WeakReference(result)

                    resolver.reject(TestError.boom)

                    #expect(result.isPending)
                    slot.value = nil
                }

                #expect(log.eventsFromThisTest(ofKind: .guaranteeReturnedSelf).count == 1)
                #expect(weakResult.object == nil)
            }
        }

        @Test func aPromiseThenReturningItselfIsRejectedNotLogged() {
            LogCapture.capture { log in
                let (head, resolver) = Promise<Int>.pending()
                let slot = Locked<Promise<Int>?>(nil)
                let result = head.then(on: nil) { _ in slot.value ?? Promise.value(0) }
                slot.value = result

                resolver.fulfill(1)

                #expect(result.error as? PMKError == .returnedSelf)
                #expect(log.eventsFromThisTest(ofKind: .guaranteeReturnedSelf).isEmpty)
                slot.value = nil
            }
        }

        @Test func operatorsWithoutFlagsLogNothing() {
            LogCapture.capture { log in
                _ = Promise.value(1).map(on: nil) { $0 }.done(on: nil) { _ in }

                #expect(log.eventsFromThisTest(ofKind: .nilDispatchQueueWithFlags).isEmpty)
            }
        }
    }
}
