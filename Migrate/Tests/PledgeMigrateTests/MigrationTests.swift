import PledgeMigrateCore
import Testing

/// The rewrite of `source`, which must change.
private func migrated(_ source: String) -> String {
    let migration = Migration.migrate(source, path: "Test.swift")
    #expect(migration.rewritten != nil, "nothing was rewritten in:\n\(source)")
    return migration.rewritten ?? source
}

/// The reports for `source`, one string each.
private func reports(_ source: String) -> [String] {
    Migration.migrate(source, path: "Test.swift").reports.map(\.description)
}

@Suite struct ModuleTests {
    @Test func importsOfEveryFormAreRenamed() {
        let source = """
            import PromiseKit
            @testable import PromiseKit
            @_exported import PMKFoundation
            import class PromiseKit.Promise
            import Foundation

            """
        #expect(
            migrated(source) == """
                import Pledge
                @testable import Pledge
                @_exported import PledgeFoundation
                import class Pledge.Promise
                import Foundation

                """)
    }

    @Test func canImportGuardsAreRenamedInEveryClause() {
        let source = """
            #if canImport(PMKFoundation)
            import PMKFoundation
            #elseif canImport(PromiseKit) && !canImport(Other)
            import PromiseKit
            #endif

            """
        #expect(
            migrated(source) == """
                #if canImport(PledgeFoundation)
                import PledgeFoundation
                #elseif canImport(Pledge) && !canImport(Other)
                import Pledge
                #endif

                """)
    }

    @Test func qualifiersAreRenamedAndPromiseKitsResultIsSwifts() {
        let source = """
            let p: PromiseKit.Promise<Int> = PromiseKit.Promise.value(1)
            let r: PromiseKit.Result<Int> = .fulfilled(1)
            let q = PromiseKit.when(fulfilled: [p])

            """
        #expect(
            migrated(source) == """
                let p: Pledge.Promise<Int> = Pledge.Promise.value(1)
                let r: Swift.Result<Int, Error> = .success(1)
                let q = Pledge.when(fulfilled: [p])

                """)
    }
}

@Suite struct ResultTests {
    @Test func oneArgumentResultGetsItsErrorType() {
        let source = """
            func handle(_ result: Result<[String: Int]>) {}
            let results: [Result<Data>] = []
            let closure: (Result<Void>) -> Void = { _ in }

            """
        #expect(
            migrated(source) == """
                func handle(_ result: Result<[String: Int], Error>) {}
                let results: [Result<Data, Error>] = []
                let closure: (Result<Void, Error>) -> Void = { _ in }

                """)
    }

    @Test func casesBecomeSwiftsInPatternsAndExpressions() {
        let source = """
            switch result {
            case .fulfilled(let value): print(value)
            case .rejected(let error): print(error)
            }
            if case .fulfilled = result {}
            let made = Result<Int>.fulfilled(1)
            let failed: Result<Int> = Result.rejected(E())

            """
        #expect(
            migrated(source) == """
                switch result {
                case .success(let value): print(value)
                case .failure(let error): print(error)
                }
                if case .success = result {}
                let made = Result<Int, Error>.success(1)
                let failed: Result<Int, Error> = Result.failure(E())

                """)
    }

    @Test func aFileWithItsOwnResultOrCasesKeepsThem() {
        let ownType = """
            enum Result<T> { case fulfilled(T) }
            let r: Result<Int> = .fulfilled(1)

            """
        #expect(Migration.migrate(ownType, path: "T.swift").rewritten == nil)
        let ownCase = """
            enum Step { case fulfilled, rejected }
            let s: Step = .fulfilled

            """
        #expect(Migration.migrate(ownCase, path: "T.swift").rewritten == nil)
    }

    @Test func otherMembersNamedLikeTheCasesAreLeftAlone() {
        let source = """
            let a = order.fulfilled
            let b = promise.isFulfilled
            let c = Swift.Result<Int, Error>.success(1)

            """
        #expect(Migration.migrate(source, path: "T.swift").rewritten == nil)
    }
}

@Suite struct PromiseKit6Tests {
    @Test func alwaysBecomesEnsure() {
        let source = """
            fetch().always { spinner.stop() }.catch { _ in }
            fetch().always(on: .main) { spinner.stop() }
            let always = settings.always

            """
        #expect(
            migrated(source) == """
                fetch().ensure { spinner.stop() }.catch { _ in }
                fetch().ensure(on: .main) { spinner.stop() }
                let always = settings.always

                """)
    }

    @Test func flatMapErrorsBecomeCompactMap() {
        let source = """
            if case PMKError.flatMap(let value, _) = error { print(value) }
            switch error { case .flatMap: break; default: break }
            let all = lists.flatMap { $0 }

            """
        #expect(
            migrated(source) == """
                if case PMKError.compactMap(let value, _) = error { print(value) }
                switch error { case .compactMap: break; default: break }
                let all = lists.flatMap { $0 }

                """)
    }

    @Test func hangBecomesWait() {
        let source = """
            let value = try hang(fetch())
            let other = try hang(a ?? b)
            hang(p)

            """
        #expect(
            migrated(source) == """
                let value = try fetch().wait()
                let other = try (a ?? b).wait()
                p.wait()

                """)
    }

    @Test func valueInitialisersBecomeValue() {
        let source = """
            let p = Promise(value: 1)
            let g = Guarantee<String>(value: "a")
            let e = Promise<Int>(error: E())

            """
        #expect(
            migrated(source) == """
                let p = Promise.value(1)
                let g = Guarantee<String>.value("a")
                let e = Promise<Int>(error: E())

                """)
    }
}

@Suite struct ReportTests {
    @Test func aShadowingPipeGetsASendableClosure() {
        let source = """
            extension Promise {
                func pipe(to block: @escaping (Result<T>) -> Void) -> Self {
                    pipe(to: block)
                    return self
                }
                func done(_ body: (T) -> Void) {}
            }

            """
        let migration = Migration.migrate(source, path: "Test.swift")
        #expect(
            migration.rewritten == """
                extension Promise {
                    func pipe(to block: @escaping @Sendable (Result<T, Error>) -> Void) -> Self {
                        pipe(to: block)
                        return self
                    }
                    func done(_ body: @Sendable (T) -> Void) {}
                }

                """)
        #expect(migration.reports.isEmpty)
        #expect(migration.changes.contains { $0.description.hasPrefix("Test.swift:2: pipe(to:) shadowed Pledge's") })
    }

    @Test func aShadowingOptionalClosureIsReported() {
        let found = reports(
            """
            extension Thenable {
                func tap(_ body: ((Result<T>) -> Void)?) -> Self { self }
            }

            """)
        #expect(found.count == 1)
        #expect(found.first?.hasPrefix("Test.swift:2: tap(_:) here shadows Pledge's") == true)
    }

    @Test func aSendableClosureOrAnOwnTypeIsNotReported() {
        let found = reports(
            """
            extension Promise {
                func done(on queue: DispatchQueue, _ body: @escaping @Sendable (T) -> Void) {}
            }
            extension Array {
                func map(_ body: (Element) -> Int) -> [Int] { [] }
            }

            """)
        #expect(found.isEmpty)
    }

    @Test func anExtensionOfResultGetsSwiftsGenericName() {
        let source = """
            extension Result {
                var value: T? { if case .fulfilled(let v) = self { return v }; return nil }
                func map2<U>(_ f: (T) -> U) -> U? where T: Equatable { value.map(f) }
            }

            """
        #expect(
            migrated(source) == """
                extension Result {
                    var value: Success? { if case .success(let v) = self { return v }; return nil }
                    func map2<U>(_ f: (Success) -> U) -> U? where Success: Equatable { value.map(f) }
                }

                """)
        #expect(reports(source).isEmpty)
    }

    @Test func anExtensionOfResultWithAnotherTIsReported() {
        let source = """
            extension Result {
                func cast<T>(_ type: T.Type) -> T? { nil }
            }

            """
        #expect(reports(source).first?.hasPrefix("Test.swift:1: an extension of PromiseKit's Result<T>") == true)
        #expect(Migration.migrate(source, path: "Test.swift").rewritten == nil)
    }

    @Test func wrapFutureEventSwitchesAndCombinatorsAsFunctionsAreReported() {
        let found = reports(
            """
            let p = wrap { fetch(completion: $0) }
            let f = p.future()
            switch event {
            case .waitOnMainThread: break
            case .pendingPromiseDeallocated, .pendingGuaranteeDeallocated, .cauterized: break
            }
            let all = fetchAll().then(when(fulfilled:))

            """)
        #expect(found.count == 4)
        #expect(found.contains { $0.hasPrefix("Test.swift:1: PromiseKit 6's wrap") })
        #expect(found.contains { $0.hasPrefix("Test.swift:2: future()") })
        #expect(found.contains { $0.hasPrefix("Test.swift:3: a switch over LogEvent without default") })
        #expect(found.contains { $0.hasPrefix("Test.swift:7: when passed as a function") })
    }

    @Test func mainThreadChecksTrappingLogHandlersAndManifestsAreReported() {
        let source = """
            conf.logHandler = { event in
                switch event { case .waitOnMainThread: break; default: fatalError("\\(event)") }
            }
            func work() { precondition(Thread.isMainThread) }

            """
        let found = reports(source)
        #expect(found.count == 2)
        #expect(found.contains { $0.hasPrefix("Test.swift:1: this log handler traps") })
        #expect(found.contains { $0.hasPrefix("Test.swift:4: this code checks for the main thread") })
        let configured = "conf.Q = (map: .main, return: .main)\nlet onMain = Thread.isMainThread\n"
        #expect(reports(configured).isEmpty)
        let manifest = """
            let package = Package(dependencies: [.package(url: "https://github.com/mxcl/PromiseKit", from: "8.0.0")])

            """
        let inManifest = Migration.migrate(manifest, path: "Client/Package.swift").reports.map(\.description)
        #expect(inManifest.count == 1)
        #expect(inManifest.first?.hasPrefix("Client/Package.swift:1: the manifest depends on PromiseKit") == true)
    }

    @Test func bridgesPledgeHasAreRemoved() {
        let source = """
            extension Resolver {
                func resolve(_ result: Swift.Result<T, Error>) { resolve(result.promiseResult) }
                func other() {}
            }
            extension Promise {
                func async() async throws -> T { try await withCheckedThrowingContinuation { c in pipe { c.resume(with: $0) } } }
            }

            """
        #expect(
            migrated(source) == """
                extension Resolver {
                    func other() {}
                }
                extension Promise {
                }

                """)
    }

    @Test func aSwitchWithADefaultIsNotReported() {
        let found = reports(
            """
            switch event {
            case .waitOnMainThread: break
            default: print(event)
            }

            """)
        #expect(found.isEmpty)
    }
}

@Suite struct SafetyTests {
    @Test func aFileThatDoesNotParseIsLeftAlone() {
        let migration = Migration.migrate("import PromiseKit\nfunc broken( {\n", path: "Broken.swift")
        #expect(migration.rewritten == nil)
        #expect(migration.reports.map(\.description) == ["Broken.swift:1: not parsed as Swift; left unchanged"])
    }

    @Test func migratingTwiceChangesNothingMore() {
        let source = """
            import PromiseKit
            #if canImport(PMKFoundation)
            import PMKFoundation
            #endif
            func f(_ r: PromiseKit.Result<Int>, _ s: Result<[Int]>) -> Promise<Int> {
                if case .rejected(let e) = r { return Promise(error: e) }
                return Promise(value: 1).always { }
            }

            """
        let once = migrated(source)
        #expect(Migration.migrate(once, path: "T.swift").rewritten == nil)
    }

    @Test func eachRewriteIsListedWithItsLine() {
        let migration = Migration.migrate("import PromiseKit\n\nlet r: Result<Int> = .fulfilled(1)\n", path: "L.swift")
        #expect(
            migration.changes.map(\.description) == [
                "L.swift:1: PromiseKit → Pledge",
                "L.swift:3: Result<Int> → Result<Int, Error>",
                "L.swift:3: fulfilled → success",
            ])
    }
}
