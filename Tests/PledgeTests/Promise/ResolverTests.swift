import Pledge
import Testing

@Suite struct ResolverTests {
    @Test func fulfillFulfils() {
        let (promise, resolver) = Promise<Int>.pending()

        resolver.fulfill(1)

        #expect(promise.value == 1)
    }

    @Test func rejectRejects() {
        let (promise, resolver) = Promise<Int>.pending()

        resolver.reject(TestError.boom)

        #expect(promise.error as? TestError == .boom)
    }

    @Test func onlyTheFirstResolutionCounts() {
        let (promise, resolver) = Promise<Int>.pending()

        resolver.fulfill(1)
        resolver.reject(TestError.boom)
        resolver.fulfill(2)
        resolver.resolve(Result<Int, Error>.success(3))

        #expect(promise.value == 1)
    }

    @Test func aRejectionCannotBeOverturnedEither() {
        let (promise, resolver) = Promise<Int>.pending()

        resolver.reject(TestError.boom)
        resolver.fulfill(2)

        #expect(promise.error as? TestError == .boom)
    }

    @Test func handlersRunOnceEvenWhenTheResolverIsCalledAgain() async {
        let (promise, resolver) = Promise<Int>.pending()

        await confirmation(expectedCount: 1) { handled in
            promise.pipe { _ in handled() }
            resolver.fulfill(1)
            resolver.fulfill(2)
            resolver.reject(TestError.boom)
        }
    }

    // MARK: resolve(Result)

    @Test func resolveWithASuccessFulfils() {
        let (promise, resolver) = Promise<Int>.pending()

        resolver.resolve(Result<Int, Error>.success(4))

        #expect(promise.value == 4)
    }

    /// PromiseKit code says `seal.resolve(.fulfilled(value))`; with `Swift.Result` that becomes
    /// `.success(value)`, whose error type only a non-generic overload can supply.
    @Test func resolveWithABareSuccessLiteralFulfils() {
        let promise = Promise<Int> { seal in seal.resolve(.success(4)) }
        let void = Promise<Void> { seal in seal.resolve(.success(())) }

        #expect(promise.value == 4)
        #expect(void.isFulfilled)
    }

    @Test func resolveWithABareFailureLiteralRejects() {
        let promise = Promise<Int> { seal in seal.resolve(.failure(TestError.boom)) }

        #expect(promise.error as? TestError == .boom)
    }

    @Test func resolveServesAsAResultCompletionHandler() {
        let (promise, resolver) = Promise<Int>.pending()
        let untyped: (Result<Int, Error>) -> Void = resolver.resolve
        let (typedPromise, typedResolver) = Promise<Int>.pending()
        let typed: (Result<Int, TestError>) -> Void = typedResolver.resolve

        untyped(.success(6))
        typed(.failure(.other))

        #expect(promise.value == 6)
        #expect(typedPromise.error as? TestError == .other)
    }

    @Test func resolveWithAFailureOfATypedErrorRejects() {
        let (promise, resolver) = Promise<Int>.pending()

        resolver.resolve(Result<Int, TestError>.failure(.other))

        #expect(promise.error as? TestError == .other)
    }

    // MARK: resolve(T?, Error?) and resolve(Error?, T?)

    @Test func resolveWithAValueAndNoErrorFulfils() {
        let (promise, resolver) = Promise<Int>.pending()

        resolver.resolve(Int?.some(5), nil)

        #expect(promise.value == 5)
    }

    @Test func resolveWithAnErrorRejectsEvenWithAValue() {
        let (promise, resolver) = Promise<Int>.pending()

        resolver.resolve(Int?.some(5), TestError.boom)

        #expect(promise.error as? TestError == .boom)
    }

    @Test func resolveWithNeitherValueNorErrorRejectsWithInvalidCallingConvention() {
        let (promise, resolver) = Promise<Int>.pending()

        resolver.resolve(Int?.none, nil)

        #expect(promise.error as? PMKError == .invalidCallingConvention)
    }

    @Test func resolveWithANonOptionalValueAndNoErrorFulfils() {
        let (promise, resolver) = Promise<Int>.pending()

        resolver.resolve(6, nil)

        #expect(promise.value == 6)
    }

    @Test func resolveWithANonOptionalValueAndAnErrorRejects() {
        let (promise, resolver) = Promise<Int>.pending()

        resolver.resolve(6, TestError.boom)

        #expect(promise.error as? TestError == .boom)
    }

    @Test func resolveWithErrorFirstAndAValueFulfils() {
        let (promise, resolver) = Promise<Int>.pending()

        resolver.resolve(nil, Int?.some(7))

        #expect(promise.value == 7)
    }

    @Test func resolveWithErrorFirstAndAnErrorRejects() {
        let (promise, resolver) = Promise<Int>.pending()

        resolver.resolve(TestError.other, Int?.some(7))

        #expect(promise.error as? TestError == .other)
    }

    @Test func resolveWithErrorFirstAndNeitherRejectsWithInvalidCallingConvention() {
        let (promise, resolver) = Promise<Int>.pending()

        resolver.resolve(nil as Error?, nil as Int?)

        #expect(promise.error as? PMKError == .invalidCallingConvention)
    }

    @Test func resolveAdaptsACompletionHandler() {
        func legacyLoad(fail: Bool, completion: (String?, Error?) -> Void) {
            fail ? completion(nil, TestError.boom) : completion("loaded", nil)
        }

        let loaded = Promise<String> { seal in legacyLoad(fail: false, completion: seal.resolve) }
        let failed = Promise<String> { seal in legacyLoad(fail: true, completion: seal.resolve) }

        #expect(loaded.value == "loaded")
        #expect(failed.error as? TestError == .boom)
    }

    // MARK: Void resolvers

    @Test func voidResolveWithNoErrorFulfils() {
        let (promise, resolver) = Promise<Void>.pending()

        resolver.resolve(nil)

        #expect(promise.isFulfilled)
    }

    @Test func voidResolveWithAnErrorRejects() {
        let (promise, resolver) = Promise<Void>.pending()

        resolver.resolve(TestError.boom)

        #expect(promise.error as? TestError == .boom)
    }

    @Test func voidFulfillNeedsNoArgument() {
        let (promise, resolver) = Promise<Void>.pending()

        resolver.fulfill()

        #expect(promise.isFulfilled)
    }

    @Test func voidFulfillUnderscoreCanBePassedAsAFunction() {
        let (promise, resolver) = Promise<Void>.pending()
        let callback: () -> Void = resolver.fulfill_

        callback()

        #expect(promise.isFulfilled)
    }

    // MARK: Description

    /// `dump` of a resolver shows whether its promise is pending, never the box behind it.
    @Test func dumpShowsWhetherThePromiseIsPending() {
        let (promise, resolver) = Promise<Int>.pending()
        var pendingDump = ""
        dump(resolver, to: &pendingDump)

        #expect(pendingDump.contains("isPending: true"))

        resolver.fulfill(1)
        var resolvedDump = ""
        dump(resolver, to: &resolvedDump)

        #expect(resolvedDump.contains("isPending: false"))
        #expect(promise.value == 1)
    }

    @Test func descriptionSaysWhetherThePromiseIsResolved() {
        let (_, resolver) = Promise<Int>.pending()

        #expect(resolver.description == "Resolver<Int>(pending)")
        resolver.fulfill(1)
        #expect(resolver.description == "Resolver<Int>(resolved)")
    }
}
