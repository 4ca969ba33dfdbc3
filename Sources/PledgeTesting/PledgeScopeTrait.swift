#if canImport(Testing)
    import Pledge
    import Testing

    /// A Swift Testing trait that runs each test in a configuration scope of its own
    /// (`conf.withScope`): ``waitUntilIdle(timeout:)-4hji2`` then waits for that test's work
    /// alone, whatever the tests beside it leave running.
    ///
    /// On a suite, it gives every test and every case of a parameterized test its own scope.
    ///
    /// ```swift
    /// @Suite(.pledgeScope) struct ShelfTests {
    ///     @Test func refreshingFillsTheShelf() async {
    ///         let shelf = Shelf()
    ///         shelf.refresh()
    ///         #expect(await waitUntilIdle())
    ///         #expect(shelf.titles == ["Dune", "Emma"])
    ///     }
    /// }
    /// ```
    public struct PledgeScopeTrait: TestTrait, SuiteTrait, TestScoping {
        /// Applies to each test of a suite.
        public var isRecursive: Bool { true }

        /// A scope for each test case; none for a suite as a whole.
        public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
            testCase == nil ? nil : self
        }

        /// Runs the test in a configuration scope of its own.
        public func provideScope(
            for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
        ) async throws {
            try await conf.withScope { try await function() }
        }
    }

    extension Trait where Self == PledgeScopeTrait {
        /// Runs each test in a configuration scope of its own (see ``PledgeScopeTrait``).
        public static var pledgeScope: Self { PledgeScopeTrait() }
    }
#endif
