/// Makes a random ``Program`` from an ``Entropy``: a graph of sources, operators and
/// combinators, then each thread's actions (resolve, cancel, drop, late attach).
struct Generator<E: Entropy> {
    private var entropy: E
    private let options: ModelOptions
    private var nodes: [Node] = []

    init(_ entropy: E, options: ModelOptions) {
        self.entropy = entropy
        self.options = options
    }

    /// The length of the deep-lazy-chain shape (API.md's trampoline promise: any length works).
    static var deepChainLength: Int { 50_000 }

    mutating func program(origin: String) -> Program {
        // One program in a thousand: always the same one, and a round of it costs as much as a
        // hundred others (seed 29 is the first).
        if !options.avoiding.contains(.deepLazyChain), entropy.chance(1, in: 1000) { return deepLazyChain(origin) }
        let threadCount = [1, 1, 1, 2, 2, 3, 4, 4][entropy.below(8)]
        for _ in 0..<(3 + entropy.below(10)) {
            addBuildNode()
        }
        var threads = [[Action]](repeating: [], count: threadCount)
        for _ in 0..<(3 + entropy.below(14)) {
            let thread = entropy.below(threadCount)
            threads[thread] += actions()
        }
        return Program(nodes: nodes, threads: threads, origin: origin)
    }

    private mutating func deepLazyChain(_ origin: String) -> Program {
        add(.int, .promise, .source(.lazy(.fulfill(1))))
        for index in 1..<Self.deepChainLength {
            add(.int, .promise, .source(.lazy(.pipe(index - 1))))
        }
        let last = add(.void, .promise, .operation(.done(fail: nil), input: nodes.count - 1, on: .inline), late: true)
        return Program(nodes: nodes, threads: [[.attach(last)]], origin: origin + ", a deep lazy chain")
    }

    @discardableResult
    private mutating func add(_ type: ValueType, _ form: Form, _ origin: Origin, late: Bool = false) -> NodeID {
        nodes.append(Node(id: nodes.count, type: type, form: form, origin: origin, isLate: late))
        return nodes.count - 1
    }

    private func candidates(_ form: Form, _ type: ValueType) -> [NodeID] {
        nodes.filter { !$0.isLate && $0.form == form && $0.type == type }.map(\.id)
    }

    private func intThenables() -> [NodeID] {
        nodes.filter { !$0.isLate && $0.type == .int && [.promise, .guarantee, .foreign].contains($0.form) }.map(\.id)
    }

    private mutating func addBuildNode() {
        let roll = nodes.count < 2 ? 0 : entropy.below(100)
        if roll < 30 {
            addSource()
        } else if roll < 80 {
            let inputs = nodes.filter { !$0.isLate && $0.form != .marker }
            // Half the time one of the last few nodes, so that chains grow long.
            let recent = entropy.chance(1, in: 2) ? Array(inputs.suffix(3)) : inputs
            guard let input = entropy.pick(recent), let (operation, type, form) = operation(on: input) else { return }
            add(type, form, .operation(operation, input: input.id, on: executor()))
        } else if roll < 96 {
            addCombinator()
        } else {
            let attempts = entropy.below(4)
            let script = (0..<max(attempts, 1)).map { _ in attempt() }
            add(.int, .promise, .retry(attempts: attempts, script: script, backoffMilliseconds: entropy.below(2)))
        }
    }

    private mutating func executor() -> Executor { Executor.allCases[entropy.below(Executor.allCases.count)] }
    private mutating func number() -> Int { entropy.below(100) }

    private mutating func attempt() -> Attempt {
        switch entropy.below(4) {
        case 0: return .fulfill(number())
        case 1: return .reject(number())
        case 2: return .throw(number())
        default: return .fulfillLater(number())
        }
    }

    private mutating func addSource() {
        switch entropy.below(12) {
        case 0, 1: add(.int, .promise, .source(.pending))
        case 2: add(.int, .guarantee, .source(.pending))
        case 3: add(.void, .guarantee, .source(.pending))
        case 4: add(.int, .foreign, .source(.pending))
        case 5: add(.int, .promise, .source(.fulfilled(number())))
        case 6: add(.int, .guarantee, .source(.fulfilled(number())))
        case 7: add(.int, .promise, .source(.rejected(number())))
        case 8:
            let guarantee = entropy.chance(1, in: 3)
            let previous = entropy.pick(candidates(guarantee ? .guarantee : .promise, .int))
            let body: LazyBody
            switch entropy.below(4) {
            case 0: body = .fulfill(number())
            case 1: body = .reject(number())
            case 2: body = .fulfillLater(number())
            default: body = previous.map { .pipe($0) } ?? .fulfill(number())
            }
            add(.int, guarantee ? .guarantee : .promise, .source(.lazy(body)))
        case 9: add(.void, .guarantee, .source(.after(milliseconds: entropy.below(3))))
        default:
            let guarantee = entropy.chance(1, in: 3)
            let awaited = entropy.pick(
                guarantee
                    ? candidates(.guarantee, .int)
                    : intThenables().filter {
                        nodes[$0].form != .foreign
                    })
            let body: TaskBody
            switch entropy.below(3) {
            case 0: body = .value(number())
            case 1: body = .fail(number())
            default: body = awaited.map { .await($0, add: number()) } ?? .value(number())
            }
            add(.int, guarantee ? .guarantee : .promise, .source(.task(body)))
        }
    }

    /// An operator that fits `input`, with the type and form of the node it makes.
    private mutating func operation(on input: Node) -> (Operation, ValueType, Form)? {
        let type = input.type
        switch input.form {
        case .finalizer:
            return (.finally, .void, .marker)
        case .marker:
            return nil
        case .guarantee where entropy.chance(1, in: 2):
            switch entropy.below(4) {
            case 0: return (.guaranteeMap(add: number()), .int, .guarantee)
            case 1:
                let next = entropy.pick(candidates(.guarantee, .int)).map { Returned.node($0) } ?? .value(number())
                return (.guaranteeThen(entropy.chance(1, in: 2) ? next : .value(number())), .int, .guarantee)
            case 2: return (.guaranteeDone, .void, .guarantee)
            default: return (.guaranteeGet, type, .guarantee)
            }
        case .promise where entropy.chance(1, in: 2):
            switch entropy.below(6) {
            case 0, 1: return (.recover(returned(type), allErrors: entropy.chance(1, in: 3)), type, .promise)
            case 2:
                let fallback = entropy.pick(candidates(.guarantee, type)).map { Returned.node($0) }
                return (.recoverGuarantee(fallback ?? .value(number())), type, .guarantee)
            case 3: return (.ensure, type, .promise)
            case 4:
                let cleanup = entropy.pick(candidates(.guarantee, .void)).map { Returned.node($0) }
                return (.ensureThen(entropy.chance(1, in: 2) ? cleanup ?? .value(0) : .value(0)), type, .promise)
            default: return (.catch(allErrors: entropy.chance(1, in: 3)), .void, .finalizer)
            }
        default:
            break
        }
        switch entropy.below(10) {
        case 0, 1:
            return (.map(add: number(), fail: entropy.chance(1, in: 5) ? number() : nil), .int, .promise)
        case 2: return (.compactMap(add: number(), returnsNil: entropy.chance(1, in: 4)), .int, .promise)
        case 3, 4: return (.then(returned(.int)), .int, .promise)
        case 5: return (.done(fail: entropy.chance(1, in: 5) ? number() : nil), .void, .promise)
        case 6:
            return (
                entropy.chance(1, in: 2) ? .get(fail: entropy.chance(1, in: 5) ? number() : nil) : .tap, type, .promise
            )
        case 7: return (.validate(passes: entropy.chance(3, in: 4)), type, .promise)
        case 8: return (.asVoid, .void, .promise)
        default:
            let milliseconds = [nil, 0, 1, 3][entropy.below(4)]
            return (.timeout(milliseconds: milliseconds), type, .promise)
        }
    }

    /// What a `then` (for `.int`) or `recover` closure returns.
    private mutating func returned(_ type: ValueType) -> Returned {
        switch entropy.below(5) {
        case 0: return .value(number())
        case 1: return .rejection(number())
        case 2: return .throw(number())
        default:
            let forms: [Form] = type == .int ? [.promise, .guarantee, .foreign] : [.promise, .guarantee]
            let others = nodes.filter { !$0.isLate && $0.type == type && forms.contains($0.form) }.map(\.id)
            return entropy.pick(others).map { .node($0) } ?? .value(number())
        }
    }

    private mutating func inputs(_ form: Form, _ type: ValueType, _ range: ClosedRange<Int>) -> [NodeID]? {
        let pool = candidates(form, type)
        guard !pool.isEmpty else { return range.lowerBound == 0 ? [] : nil }
        let count = range.lowerBound + entropy.below(range.count)
        guard options.avoiding.contains(.raceWithRepeatedInput) else {
            return (0..<count).map { _ in pool[entropy.below(pool.count)] }
        }
        // Distinct inputs, each drawn from those not chosen yet: drawing from the whole pool until
        // a new one comes never ends on a fuzzer's input, whose choices are all 0 once it is read.
        var left = pool
        var chosen: [NodeID] = []
        while chosen.count < count, !left.isEmpty {
            chosen.append(left.remove(at: entropy.below(left.count)))
        }
        return chosen.count >= range.lowerBound ? chosen : nil
    }

    private mutating func addCombinator() {
        let guarantees = entropy.chance(1, in: 3)
        let form: Form = guarantees ? .guarantee : .promise
        switch entropy.below(9) {
        case 0:
            let void = entropy.chance(1, in: 4)
            guard let inputs = inputs(void ? .promise : form, void ? .void : .int, 0...3) else { return }
            add(void ? .void : .list, .promise, .combinator(.whenFulfilled, inputs: inputs))
        case 1:
            let three = entropy.chance(1, in: 3)
            guard let first = inputs(three ? .promise : form, .int, 1...1),
                let rest = inputs(.promise, .int, three ? 2...2 : 1...1)
            else { return }
            add(three ? .triple : .pair, .promise, .combinator(.whenFulfilledTuple, inputs: first + rest))
        case 2:
            guard let inputs = inputs(.promise, .void, 1...3) else { return }
            add(.void, .promise, .combinator(.whenFulfilledVariadic, inputs: inputs))
        case 3:
            let variadic = entropy.chance(1, in: 2)
            guard let inputs = inputs(.promise, .int, variadic ? 1...3 : 0...3) else { return }
            add(.results, .guarantee, .combinator(.whenResolved(variadic: variadic), inputs: inputs))
        case 4:
            let resolved = entropy.chance(1, in: 2)
            guard let inputs = inputs(.promise, .int, 0...3) else { return }
            let combinator = Combinator.whenConcurrently(resolved: resolved, limit: 1 + entropy.below(3))
            add(resolved ? .results : .list, resolved ? .guarantee : .promise, .combinator(combinator, inputs: inputs))
        case 5:
            let void = entropy.chance(1, in: 4)
            let shape = [GuaranteesForm.array, .tuple, .variadic][entropy.below(3)]
            let range = shape == .array ? 0...3 : (shape == .tuple || void ? 2...2 : 2...3)
            guard let inputs = inputs(.guarantee, void ? .void : .int, range) else { return }
            let type: ValueType = void ? .void : (shape == .tuple ? .pair : .list)
            add(
                type, .guarantee, .combinator(.whenGuarantees(void && shape == .tuple ? .array : shape), inputs: inputs)
            )
        case 6, 7:
            let variadic = entropy.chance(1, in: 2)
            guard let inputs = inputs(form, .int, variadic ? 2...2 : 1...3) else { return }
            add(
                .int, guarantees && variadic ? .guarantee : .promise,
                .combinator(.race(variadic: variadic), inputs: inputs))
        default:
            guard let inputs = inputs(form, .int, 1...3) else { return }
            add(.int, .promise, .combinator(.raceFulfilled, inputs: inputs))
        }
    }

    /// Whether a `cancel()` of `id` stays clear of the known bugs the options avoid: with
    /// ``KnownBug/cancelFollowerOfUncancellable`` avoided, no node that follows a guarantee or a
    /// foreign thenable, nor anything made from one, is cancelled.
    private func mayCancel(_ id: NodeID) -> Bool {
        guard options.avoiding.contains(.cancelFollowerOfUncancellable) else { return true }
        return !followsUncancellable(id)
    }

    private func followsUncancellable(_ id: NodeID) -> Bool {
        switch nodes[id].origin {
        case .operation(let operation, let input, _):
            if let followed = operation.returnedNode, nodes[followed].form != .promise { return true }
            if case .ensureThen = operation { return true }
            return followsUncancellable(input)
        case .combinator(_, let inputs):
            return inputs.contains(where: followsUncancellable)
        case .source, .retry:
            return false
        }
    }

    /// One thread's next actions: usually one, a late attach sometimes with what follows it.
    private mutating func actions() -> [Action] {
        let built = nodes.filter { !$0.isLate }
        switch entropy.below(10) {
        case 0, 1, 2:
            let pending = built.filter { if case .source(.pending) = $0.origin { return true } else { return false } }
            guard let source = entropy.pick(pending) else { return [] }
            if source.form == .guarantee || entropy.chance(2, in: 3) { return [.fulfill(source.id, number())] }
            return [.reject(source.id, number())]
        case 3, 4:
            guard let target = entropy.pick(built.filter { $0.isCancellable && mayCancel($0.id) }) else { return [] }
            return [.cancel(target.id)]
        case 5, 6:
            guard let target = entropy.pick(built) else { return [] }
            return [.dropNode(target.id)]
        case 7:
            let pending = built.filter { if case .source(.pending) = $0.origin { return true } else { return false } }
            guard let source = entropy.pick(pending) else { return [] }
            return [.dropResolver(source.id)]
        default:
            guard let input = entropy.pick(built.filter { $0.form != .marker }),
                let (operation, type, form) = operation(on: input)
            else { return [] }
            let late = add(type, form, .operation(operation, input: input.id, on: executor()), late: true)
            var actions: [Action] = [.attach(late)]
            if nodes[late].isCancellable, mayCancel(late), entropy.chance(1, in: 3) { actions.append(.cancel(late)) }
            if entropy.chance(1, in: 4) { actions.append(.dropNode(late)) }
            return actions
        }
    }
}
