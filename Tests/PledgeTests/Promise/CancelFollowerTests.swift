import Dispatch
import Pledge
import Testing

/// Cancelling an operator's result after its input is gone, when the operator ran inline and went
/// on to wait for something that cannot be cancelled (a guarantee, a thenable outside Pledge) or
/// for `ensureThen`'s guarantee. The result no longer depends on its input then: cancelling it,
/// one of its dependents, the finalizer after it, or a task awaiting it must touch nothing but the
/// result (under AddressSanitizer, as CI runs this suite, a stale link to the freed input shows).
extension CancelTests {
    /// What the operator waits for once its input has arrived.
    enum Wait: String, CaseIterable, Sendable {
        case thenPendingGuarantee
        case thenForeignThenable
        case recoverPendingGuarantee
        case recoverWithPolicyForeignThenable
        case ensureThenPendingGuarantee
    }

    /// Where the cancellation starts.
    enum Reach: String, CaseIterable, Sendable {
        case theResult
        case aDependent
        case theFinalizer
        case anAsyncWaiter
    }

    /// The result of an operator that waits as `wait` says, its input made, resolved and freed
    /// inside; and what releases the wait.
    static func follower(_ wait: Wait) -> (Promise<Int>, release: @Sendable () -> Void) {
        let (guarantee, seal) = Guarantee<Int>.pending()
        let foreign = ForeignThenable<Int>()
        let release: @Sendable () -> Void = {
            seal(2)
            foreign.resolve(.success(2))
        }
        let result: Promise<Int> = {
            let (head, resolver) = Promise<Int>.pending()
            let result: Promise<Int>
            switch wait {
            case .thenPendingGuarantee: result = head.then(on: nil) { _ in guarantee }
            case .thenForeignThenable: result = head.then(on: nil) { _ in foreign }
            case .recoverPendingGuarantee: result = Promise(head.recover(on: nil) { _ in guarantee })
            case .recoverWithPolicyForeignThenable:
                result = head.recover(on: nil, policy: .allErrors) { _ in foreign }
            case .ensureThenPendingGuarantee:
                result = head.map(on: nil) { $0 }.ensureThen(on: nil) { guarantee.asVoid() }
            }
            switch wait {
            case .recoverPendingGuarantee, .recoverWithPolicyForeignThenable: resolver.reject(TestError.boom)
            default: resolver.fulfill(1)
            }
            return result
        }()
        return (result, release)
    }

    @Test(arguments: Wait.allCases, Reach.allCases)
    func cancellingWhatFollowsAnInlineOperatorWhoseInputIsGoneTouchesOnlyTheChain(wait: Wait, reach: Reach) async {
        let (result, release) = Self.follower(wait)
        let end: Promise<Void>
        switch reach {
        case .theResult:
            result.cancel()
            end = result.asVoid()
        case .aDependent:
            let dependent = result.map(on: nil) { _ in () }
            dependent.cancel()
            end = dependent
        case .theFinalizer:
            let done = result.done(on: nil) { _ in }
            done.catch(on: nil, policy: .allErrors) { _ in }.cancel()
            end = done
        case .anAsyncWaiter:
            let waiter = Task { try await result.async() }
            waiter.cancel()
            _ = await waiter.result
            end = result.asVoid()
        }
        release()
        if reach != .anAsyncWaiter {
            #expect(end.isCancelled)
        }
        // A waiter cancelled before it attached leaves the result to be cancelled or to go on.
        #expect(end.settledResult() != nil)
    }
}
