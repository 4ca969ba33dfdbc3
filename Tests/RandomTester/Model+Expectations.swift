/// What each kind of node may end as, from its inputs' observed states (API.md's semantics).
extension Model {
    /// The states `id` may end in and how often its closure may run, cancellation included.
    func expectation(_ id: NodeID) -> Expectation {
        let node = node(id)
        var expected = naturalExpectation(node)
        let ran = observed.runCount(id)
        if node.form == .promise, mayBeCancelled(id) {
            expected.outcomes?.insert(.cancelled)
            if !isTask(node) { expected.runs = 0...expected.runs.upperBound }
            // API.md: a cleanup closure runs once however the chain ends; a cancellation that
            // may have reached the node may have ended it, and one called on it surely did.
            if case .operation(let operation, let input, _) = node.origin, operation.isCleanup {
                let ended =
                    wasCancelCalled(id) || observed.outcome(id)?.isSettled == true
                    || observed.outcome(input)?.isSettled == true
                expected.runs = ended ? 1...1 : 0...1
            }
        }
        if wasCancelCalled(id) { expected.outcomes?.remove(.pending) }
        // Without its input's state, the closure's own argument tells what it was given.
        if expected.outcomes == nil, ran > 0, case .operation(let operation, _, _) = node.origin,
            let argument = observed.runs[id]?.first?.argument
        {
            expected.outcomes = outcomes(of: operation, node, given: argument)
            if mayBeCancelled(id) { expected.outcomes?.insert(.cancelled) }
        }
        return expected
    }

    private func isTask(_ node: Node) -> Bool {
        if case .source(.task) = node.origin { return true }
        return false
    }

    /// The expectation when no `cancel()` reaches the node itself.
    private func naturalExpectation(_ node: Node) -> Expectation {
        switch node.origin {
        case .source(let source):
            return sourceExpectation(source, node)
        case .operation(.catch(let allErrors), let input, _):
            guard let outcome = observed.outcome(input) else { return Expectation(outcomes: nil, runs: 0...1) }
            let caught = outcome.failure.map { allErrors || $0 != .cancelled } ?? false
            return Expectation(outcomes: nil, runs: caught ? 1...1 : 0...0)
        case .operation(.finally, let finalizer, _):
            guard case .operation(_, let input, _) = self.node(finalizer).origin,
                let outcome = observed.outcome(input)
            else { return Expectation(outcomes: nil, runs: 0...1) }
            return Expectation(outcomes: nil, runs: outcome.isSettled ? 1...1 : 0...0)
        case .operation(let operation, let input, _):
            guard let outcome = observed.outcome(input) else { return Expectation(outcomes: nil, runs: 0...1) }
            let runs = closureRuns(operation, given: outcome)
            return Expectation(outcomes: outcomes(of: operation, node, given: outcome), runs: runs)
        case .combinator(let combinator, let inputs):
            let outcomes = inputs.map(observed.outcome)
            guard outcomes.allSatisfy({ $0 != nil }) else { return Expectation(outcomes: nil) }
            return Expectation(outcomes: combine(combinator, node, outcomes.map { $0! }))
        case .retry(let attempts, let script, _):
            return retryExpectation(attempts: attempts, script: script)
        }
    }

    private func sourceExpectation(_ source: Source, _ node: Node) -> Expectation {
        switch source {
        case .pending:
            var outcomes: Set<Outcome> = []
            for action in observed.performed {
                switch action {
                case .fulfill(node.id, let value): outcomes.insert(.fulfilled(node.type.sample(value)))
                case .reject(node.id, let id): outcomes.insert(.rejected(.user(id)))
                default: break
                }
            }
            return Expectation(outcomes: outcomes.isEmpty ? [.pending] : outcomes)
        case .fulfilled(let value):
            return Expectation(outcomes: [.fulfilled(node.type.sample(value))])
        case .rejected(let id):
            return Expectation(outcomes: [.rejected(.user(id))])
        case .after:
            return Expectation(outcomes: [.fulfilled(.void)])
        case .lazy(let body):
            let attached = dependents[node.id] ?? []
            if attached.isEmpty { return Expectation(outcomes: [.pending], runs: 0...0) }
            let sure = attached.contains { $0.release != .uncertain }
            var outcomes: Set<Outcome>?
            switch body {
            case .fulfill(let value), .fulfillLater(let value): outcomes = [.fulfilled(.int(value))]
            case .reject(let id): outcomes = node.form == .guarantee ? [.fulfilled(.int(id))] : [.rejected(.user(id))]
            case .pipe(let previous): outcomes = observed.outcome(previous).map { [$0] }
            }
            if !sure { outcomes?.insert(.pending) }
            return Expectation(outcomes: outcomes, runs: sure ? 1...1 : 0...1)
        case .task(let body):
            switch body {
            case .value(let value): return Expectation(outcomes: [.fulfilled(.int(value))], runs: 1...1)
            case .fail(let id):
                let outcome: Outcome = node.form == .guarantee ? .fulfilled(.int(id)) : .rejected(.user(id))
                return Expectation(outcomes: [outcome], runs: 1...1)
            case .await(let awaited, let add):
                let outcome = observed.outcome(awaited).map { awaitedOutcome -> Outcome in
                    guard case .fulfilled(let value) = awaitedOutcome else { return awaitedOutcome }
                    return .fulfilled(.int(value.digest &+ add))
                }
                return Expectation(outcomes: outcome.map { [$0] }, runs: 1...1)
            }
        }
    }

    /// How many times an operator's closure runs once its input is in `outcome`.
    private func closureRuns(_ operation: Operation, given outcome: Outcome) -> ClosedRange<Int> {
        switch (operation, outcome) {
        case (_, .pending), (.asVoid, _), (.timeout, _): return 0...0
        case (.tap, _), (.ensure, _), (.ensureThen, _): return 1...1
        case (.recover(_, let allErrors), .rejected(let failure)):
            return allErrors || failure != .cancelled ? 1...1 : 0...0
        case (.recoverGuarantee, .rejected): return 1...1
        case (.recover, _), (.recoverGuarantee, _): return 0...0
        case (_, .fulfilled): return 1...1
        case (_, .rejected): return 0...0
        }
    }

    /// The states an operator's node may end in once its input is in `input`.
    func outcomes(of operation: Operation, _ node: Node, given input: Outcome) -> Set<Outcome>? {
        if input == .pending {
            if case .timeout(let milliseconds?) = operation, milliseconds >= 0 { return [.rejected(.timedOut)] }
            return [.pending]
        }
        switch operation {
        case .timeout(let milliseconds):
            return milliseconds == nil ? [input] : [input, .rejected(.timedOut)]
        case .tap, .ensure:
            return [input]
        case .ensureThen(let returned):
            guard case .node(let cleanup) = returned else { return [input] }
            guard let state = observed.outcome(cleanup) else { return [input, .pending] }
            return state.isSettled ? [input] : [.pending]
        case .recover(let returned, let allErrors):
            guard case .rejected(let failure) = input, allErrors || failure != .cancelled else { return [input] }
            return returnedOutcomes(returned, node.type)
        case .recoverGuarantee(let returned):
            guard case .rejected = input else { return [input] }
            return returnedOutcomes(returned, node.type)
        default:
            break
        }
        guard case .fulfilled(let value) = input else { return [input] }
        switch operation {
        case .map(let add, let fail):
            return [fail.map { .rejected(.user($0)) } ?? .fulfilled(.int(value.digest &+ add))]
        case .compactMap(let add, let returnsNil):
            return [returnsNil ? .rejected(.compactMap) : .fulfilled(.int(value.digest &+ add))]
        case .then(let returned), .guaranteeThen(let returned):
            return returnedOutcomes(returned, .int)
        case .done(let fail):
            return [fail.map { .rejected(.user($0)) } ?? .fulfilled(.void)]
        case .get(let fail):
            return [fail.map { .rejected(.user($0)) } ?? input]
        case .validate(let passes):
            return [passes ? input : .rejected(.validationFailed)]
        case .asVoid, .guaranteeDone:
            return [.fulfilled(.void)]
        case .guaranteeMap(let add):
            return [.fulfilled(.int(value.digest &+ add))]
        case .guaranteeGet:
            return [input]
        default:
            return nil
        }
    }

    /// What a `then` or `recover` node follows: the sealed promise, the error, or a node's state.
    private func returnedOutcomes(_ returned: Returned, _ type: ValueType) -> Set<Outcome>? {
        switch returned {
        case .value(let number): return [.fulfilled(type.sample(number))]
        case .rejection(let id), .throw(let id): return [.rejected(.user(id))]
        case .node(let node): return observed.outcome(node).map { [$0] }
        }
    }

    private func combine(_ combinator: Combinator, _ node: Node, _ inputs: [Outcome]) -> Set<Outcome> {
        let fulfilled = inputs.compactMap(\.value)
        let failures = inputs.compactMap(\.failure)
        let allFulfilled = fulfilled.count == inputs.count
        let allSettled = inputs.allSatisfy(\.isSettled)
        let values: Value = node.type == .void ? .void : .list(fulfilled.map(\.digest))
        switch combinator {
        case .whenConcurrently(let resolved, let limit):
            return concurrently(resolved: resolved, limit: limit, inputs)
        case .whenFulfilled, .whenFulfilledTuple, .whenFulfilledVariadic, .whenGuarantees:
            if allFulfilled { return [.fulfilled(values)] }
            if !failures.isEmpty { return Set(failures.map { .rejected($0) }) }
            return [.pending]
        case .whenResolved:
            return allSettled ? [.fulfilled(.results(inputs))] : [.pending]
        case .race:
            if inputs.isEmpty { return node.form == .promise ? [.rejected(.badInput)] : [.pending] }
            let settled = inputs.filter(\.isSettled)
            return settled.isEmpty ? [.pending] : Set(settled)
        case .raceFulfilled:
            if inputs.isEmpty { return [.rejected(.badInput)] }
            if !fulfilled.isEmpty { return Set(fulfilled.map { .fulfilled($0) }) }
            return failures.count == inputs.count ? [.rejected(.noWinner)] : [.pending]
        }
    }

    /// `when(…, concurrently: limit)` pulls its inputs in order, `limit` at a time: one is pulled
    /// when one before it has been fulfilled (`resolved:`: settled), and a rejection stops it.
    private func concurrently(resolved: Bool, limit: Int, _ inputs: [Outcome]) -> Set<Outcome> {
        guard limit > 0 else { return resolved ? [.pending] : [.rejected(.badInput)] }
        var pulled = min(limit, inputs.count)
        while pulled < inputs.count {
            let freed = inputs[..<pulled].filter { resolved ? $0.isSettled : $0.isFulfilled }.count
            guard limit + freed > pulled else { break }
            pulled = min(limit + freed, inputs.count)
        }
        let seen = Array(inputs[..<pulled])
        if resolved {
            return pulled == inputs.count && seen.allSatisfy(\.isSettled) ? [.fulfilled(.results(inputs))] : [.pending]
        }
        let failures = seen.compactMap(\.failure)
        if !failures.isEmpty { return Set(failures.map { .rejected($0) }) }
        if pulled == inputs.count, seen.allSatisfy(\.isFulfilled) {
            return [.fulfilled(.list(inputs.compactMap(\.value).map(\.digest)))]
        }
        return [.pending]
    }

    private func retryExpectation(attempts: Int, script: [Attempt]) -> Expectation {
        guard attempts >= 1 else { return Expectation(outcomes: [.rejected(.badInput)], runs: 0...0) }
        var outcome = Outcome.pending
        var calls = 0
        for index in 0..<attempts {
            calls += 1
            switch script[min(index, script.count - 1)] {
            case .fulfill(let value), .fulfillLater(let value): outcome = .fulfilled(.int(value))
            case .reject(let id), .throw(let id): outcome = .rejected(.user(id))
            }
            if outcome.isFulfilled { break }
        }
        return Expectation(outcomes: [outcome], runs: calls...calls)
    }
}
