import Pledge

/// Makes a `when` or `race` node from its inputs' handles: the form (array, variadic, tuple,
/// iterator) follows the ``Combinator`` and the inputs' types.
func makeCombinator(_ combinator: Combinator, _ node: Node, _ inputs: [any NodeHandle]) -> (any NodeHandle)? {
    let promises = inputs.compactMap { ($0 as? PromiseHandle<Int>)?.promise }
    let guarantees = inputs.compactMap { ($0 as? GuaranteeHandle<Int>)?.guarantee }
    let voids = inputs.compactMap { ($0 as? PromiseHandle<Void>)?.promise }
    let voidGuarantees = inputs.compactMap { ($0 as? GuaranteeHandle<Void>)?.guarantee }
    let allPromises = promises.count == inputs.count
    let allGuarantees = guarantees.count == inputs.count
    switch combinator {
    case .whenFulfilled:
        if node.type == .void, voids.count == inputs.count {
            return PromiseHandle(when(fulfilled: voids), .void)
        } else if allGuarantees, !inputs.isEmpty {
            return PromiseHandle(when(fulfilled: guarantees), .list)
        } else if allPromises {
            return PromiseHandle(when(fulfilled: promises), .list)
        }
    case .whenFulfilledTuple:
        return whenTuple(inputs)
    case .whenFulfilledVariadic:
        guard voids.count == inputs.count else { return nil }
        switch voids.count {
        case 1: return PromiseHandle(when(fulfilled: voids[0]), .void)
        case 2: return PromiseHandle(when(fulfilled: voids[0], voids[1]) as Promise<Void>, .void)
        case 3: return PromiseHandle(when(fulfilled: voids[0], voids[1], voids[2]) as Promise<Void>, .void)
        default: return nil
        }
    case .whenResolved(let variadic):
        guard allPromises else { return nil }
        if !variadic { return GuaranteeHandle(when(resolved: promises), .results) }
        switch promises.count {
        case 1: return GuaranteeHandle(when(resolved: promises[0]), .results)
        case 2: return GuaranteeHandle(when(resolved: promises[0], promises[1]), .results)
        case 3: return GuaranteeHandle(when(resolved: promises[0], promises[1], promises[2]), .results)
        default: return nil
        }
    case .whenConcurrently(let resolved, let limit):
        guard allPromises else { return nil }
        if resolved {
            return GuaranteeHandle(when(resolved: promises.makeIterator(), concurrently: limit), .results)
        }
        return PromiseHandle(when(fulfilled: promises.makeIterator(), concurrently: limit), .list)
    case .whenGuarantees(let form):
        return whenGuarantees(form, node, guarantees, voidGuarantees, count: inputs.count)
    case .race(let variadic):
        if allGuarantees, variadic, guarantees.count == 2 {
            return GuaranteeHandle(race(guarantees[0], guarantees[1]), .int)
        } else if allGuarantees, !inputs.isEmpty {
            return PromiseHandle(race(guarantees), .int)
        } else if allPromises, variadic, promises.count == 2 {
            return PromiseHandle(race(promises[0], promises[1]), .int)
        } else if allPromises {
            return PromiseHandle(race(promises), .int)
        }
    case .raceFulfilled:
        if allGuarantees, !inputs.isEmpty {
            return PromiseHandle(race(fulfilled: guarantees), .int)
        } else if allPromises {
            return PromiseHandle(race(fulfilled: promises), .int)
        }
    }
    return nil
}

/// `when(fulfilled: a, b)` and `when(fulfilled: a, b, c)`, of promises and guarantees mixed.
private func whenTuple(_ inputs: [any NodeHandle]) -> (any NodeHandle)? {
    func promise(_ index: Int) -> Promise<Int>? { (inputs[index] as? PromiseHandle<Int>)?.promise }
    func guarantee(_ index: Int) -> Guarantee<Int>? { (inputs[index] as? GuaranteeHandle<Int>)?.guarantee }
    switch inputs.count {
    case 2:
        if let first = promise(0), let second = promise(1) {
            return PromiseHandle(when(fulfilled: first, second), .pair)
        } else if let first = promise(0), let second = guarantee(1) {
            return PromiseHandle(when(fulfilled: first, second), .pair)
        } else if let first = guarantee(0), let second = promise(1) {
            return PromiseHandle(when(fulfilled: first, second), .pair)
        }
    case 3:
        if let first = promise(0), let second = promise(1), let third = promise(2) {
            return PromiseHandle(when(fulfilled: first, second, third), .triple)
        }
    default:
        break
    }
    return nil
}

private func whenGuarantees(
    _ form: GuaranteesForm, _ node: Node, _ guarantees: [Guarantee<Int>], _ voids: [Guarantee<Void>], count: Int
) -> (any NodeHandle)? {
    if node.type == .void {
        guard voids.count == count else { return nil }
        switch (form, voids.count) {
        case (.variadic, 2): return GuaranteeHandle(when(voids[0], voids[1]), .void)
        default: return GuaranteeHandle(when(guarantees: voids), .void)
        }
    }
    guard guarantees.count == count else { return nil }
    switch (form, guarantees.count) {
    case (.tuple, 2): return GuaranteeHandle(when(guarantees: guarantees[0], guarantees[1]), .pair)
    case (.variadic, 2): return GuaranteeHandle(when(guarantees[0], guarantees[1]), .list)
    case (.variadic, 3): return GuaranteeHandle(when(guarantees[0], guarantees[1], guarantees[2]), .list)
    default: return GuaranteeHandle(when(guarantees: guarantees), .list)
    }
}
