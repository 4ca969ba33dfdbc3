/// Prints a program as the Swift calls it makes, then each thread's actions and what became of
/// them: the reproduction of a failing round.
enum Trace {
    static func render(_ program: Program, played: [Recorder.Played] = []) -> String {
        var lines = ["// \(program.origin), \(program.threads.count) thread(s)"]
        let shown = program.nodes.count > 200 ? Array(program.nodes.prefix(3) + program.nodes.suffix(3)) : program.nodes
        for node in shown where !node.isLate {
            lines.append(declaration(node))
        }
        if shown.count < program.nodes.count {
            lines.insert("// … \(program.nodes.count - 6) nodes like these …", at: 4)
        }
        for (thread, actions) in program.threads.enumerated() {
            lines.append("// thread \(thread + 1):")
            for (index, action) in actions.enumerated() {
                let entry = played.first { $0.thread == thread && $0.index == index }
                let note = entry?.skipped.map { "  // did nothing: \($0)" } ?? (entry == nil ? "  // not played" : "")
                lines.append("    " + statement(action, program) + note)
            }
        }
        return lines.joined(separator: "\n")
    }

    private static func statement(_ action: Action, _ program: Program) -> String {
        switch action {
        case .fulfill(let node, let value):
            return program.nodes[node].type == .void ? "r\(node)(())" : "r\(node).fulfill(\(value))"
        case .reject(let node, let id): return "r\(node).reject(TesterError(\(id)))"
        case .cancel(let node): return "n\(node).cancel()"
        case .dropNode(let node): return "n\(node) = nil"
        case .dropResolver(let node): return "r\(node) = nil"
        case .attach(let node): return declaration(program.nodes[node])
        }
    }

    private static func swiftType(_ node: Node) -> String {
        let value: String
        switch node.type {
        case .int: value = "Int"
        case .void: value = "Void"
        case .list: value = "[Int]"
        case .pair: value = "(Int, Int)"
        case .triple: value = "(Int, Int, Int)"
        case .results: value = "[Result<Int, Error>]"
        }
        switch node.form {
        case .promise: return "Promise<\(value)>"
        case .guarantee: return "Guarantee<\(value)>"
        case .foreign: return "ForeignThenable"
        case .finalizer: return "PMKFinalizer"
        case .marker: return "Void"
        }
    }

    static func declaration(_ node: Node) -> String {
        let name = "n\(node.id)"
        switch node.origin {
        case .source(let source):
            return "let \(name) = " + describe(source, node)
        case .operation(let operation, let input, let executor):
            return "let \(name) = n\(input)." + describe(operation, executor, node)
        case .combinator(let combinator, let inputs):
            let list = inputs.map { "n\($0)" }.joined(separator: ", ")
            return "let \(name) = " + describe(combinator, list)
        case .retry(let attempts, let script, let backoff):
            let steps = script.map { "\($0)" }.joined(separator: ", ")
            return "let \(name) = retry(attempts: \(attempts), backoff: \(backoff == 0 ? ".none" : ".constant(1 ms)"))"
                + " { attempts: [\(steps)] }"
        }
    }

    private static func describe(_ source: Source, _ node: Node) -> String {
        let type = swiftType(node)
        switch source {
        case .pending:
            if node.form == .foreign { return "ForeignThenable()  // resolved by r\(node.id)" }
            return "\(type).pending()  // resolver: r\(node.id)"
        case .fulfilled(let value): return "\(type).value(\(value))"
        case .rejected(let id): return "Promise<Int>(error: TesterError(\(id)))"
        case .lazy(let body):
            let step: String
            switch body {
            case .fulfill(let value): step = "seal.fulfill(\(value))"
            case .reject(let id): step = node.form == .guarantee ? "seal(\(id))" : "seal.reject(TesterError(\(id)))"
            case .fulfillLater(let value): step = "DispatchQueue.global().async { seal.fulfill(\(value)) }"
            case .pipe(let previous): step = "n\(previous).pipe { seal.resolve($0) }"
            }
            return "\(type).lazy { seal in \(step) }"
        case .after(let milliseconds): return "after(.milliseconds(\(milliseconds)))"
        case .task(let body):
            switch body {
            case .value(let value): return "\(type)(task: { \(value) })"
            case .fail(let id):
                return node.form == .guarantee
                    ? "\(type)(task: { \(id) })" : "\(type)(task: { throw TesterError(\(id)) })"
            case .await(let awaited, let add): return "\(type)(task: { try await n\(awaited).async() + \(add) })"
            }
        }
    }

    private static func on(_ executor: Executor) -> String {
        switch executor {
        case .inline: return "on: nil, "
        case .standard, .mainActor, .actor: return ""
        case .serialQueue: return "on: serialQueue, "
        case .concurrentQueue: return "on: concurrentQueue, "
        case .dispatcher: return "on: dispatcher, "
        case .mainQueue: return "on: DispatchQueue.main, "
        }
    }

    private static func closure(_ executor: Executor, _ parameters: String, _ body: String) -> String {
        let isolation = executor == .mainActor ? "@MainActor " : executor == .actor ? "@TesterActor " : ""
        let head = isolation.isEmpty && parameters.isEmpty ? "" : " \(isolation)\(parameters) in"
        return "{\(head) \(body) }"
    }

    private static func returned(_ returned: Returned, _ sealed: String) -> String {
        switch returned {
        case .value(let number): return "\(sealed).value(\(number))"
        case .rejection(let id): return "Promise(error: TesterError(\(id)))"
        case .throw(let id): return "throw TesterError(\(id))"
        case .node(let node): return "n\(node)"
        }
    }

    private static func describe(_ operation: Operation, _ executor: Executor, _ node: Node) -> String {
        let first = on(executor)
        func call(_ name: String, _ extra: String = "", _ parameters: String, _ body: String) -> String {
            let arguments = (first + extra).hasSuffix(", ") ? String((first + extra).dropLast(2)) : first + extra
            let close = closure(executor, parameters, body)
            return arguments.isEmpty ? "\(name) \(close)" : "\(name)(\(arguments)) \(close)"
        }
        switch operation {
        case .map(let add, let fail):
            return call("map", "", "v", fail.map { "throw TesterError(\($0))" } ?? "v + \(add)")
        case .compactMap(let add, let returnsNil): return call("compactMap", "", "v", returnsNil ? "nil" : "v + \(add)")
        case .then(let value): return call("then", "", "_", returned(value, "Promise"))
        case .done(let fail): return call("done", "", "_", fail.map { "throw TesterError(\($0))" } ?? "")
        case .get(let fail): return call("get", "", "_", fail.map { "throw TesterError(\($0))" } ?? "")
        case .tap: return call("tap", "", "_", "")
        case .validate(let passes): return call("validate", "", "_", "\(passes)")
        case .asVoid: return "asVoid()"
        case .timeout(let milliseconds): return "timeout(\(milliseconds.map { ".milliseconds(\($0))" } ?? ".never"))"
        case .recover(let value, let allErrors):
            return call(
                "recover", "policy: .\(allErrors ? "allErrors" : "allErrorsExceptCancellation"), ", "_",
                returned(value, "Promise"))
        case .recoverGuarantee(let value): return call("recover", "", "_", returned(value, "Guarantee"))
        case .ensure: return call("ensure", "", "", "")
        case .ensureThen(let value):
            return call("ensureThen", "", "", returned(value, "Guarantee") + "  // Guarantee()")
        case .catch(let allErrors):
            return call("catch", "policy: .\(allErrors ? "allErrors" : "allErrorsExceptCancellation"), ", "_", "")
        case .finally: return call("finally", "", "", "")
        case .guaranteeMap(let add): return call("map", "", "v", "v + \(add)")
        case .guaranteeThen(let value): return call("then", "", "_", returned(value, "Guarantee"))
        case .guaranteeDone: return call("done", "", "_", "")
        case .guaranteeGet: return call("get", "", "_", "")
        }
    }

    private static func describe(_ combinator: Combinator, _ list: String) -> String {
        switch combinator {
        case .whenFulfilled: return "when(fulfilled: [\(list)])"
        case .whenFulfilledTuple, .whenFulfilledVariadic: return "when(fulfilled: \(list))"
        case .whenResolved(let variadic): return variadic ? "when(resolved: \(list))" : "when(resolved: [\(list)])"
        case .whenConcurrently(let resolved, let limit):
            return "when(\(resolved ? "resolved" : "fulfilled"): [\(list)].makeIterator(), concurrently: \(limit))"
        case .whenGuarantees(let form):
            switch form {
            case .array: return "when(guarantees: [\(list)])"
            case .tuple: return "when(guarantees: \(list))"
            case .variadic: return "when(\(list))"
            }
        case .race(let variadic): return variadic ? "race(\(list))" : "race([\(list)])"
        case .raceFulfilled: return "race(fulfilled: [\(list)])"
        }
    }
}
