// `when` over 2 to 5 thenables of different value types. The inputs are viewed as promises of
// existential values, waited for by the array fan-in, and the values cast back into a tuple.
// The values travel through the fan-in, so nothing holds on to the inputs themselves: an input
// that can never resolve (its resolver dropped) does not keep the `when`, or anything its
// handlers capture, alive once nothing else holds them.

/// Waits for every view, then builds the result from their values, in input order. A rejection
/// passes straight to the result.
///
/// - Parameters:
///   - file: The caller's site, recorded on the result's box (and the fan-in's) before any view
///     can resolve it.
///   - line: The line that goes with `file`.
///   - build: Casts the values back; `nil` only if a value had another type than its view
///     promised, which cannot happen, and rejects with ``PMKError/badInput`` rather than trap.
@inlinable
func _whenTuple<Output: Sendable>(
    _ views: [Promise<any Sendable>], file: StaticString, line: UInt,
    build: @escaping @Sendable ([any Sendable]) -> Output?
) -> Box<Result<Output, Error>> {
    // The result depends on the fan-in as an operator's does on its input: cancelling it
    // cancels the fan-in, and so the inputs. It carries the fan-in's site, the caller's.
    Promise(box: _fanIn(all: views, FanInValues.self, file: file, line: line))._chain(
        .inline,
        MapOperation { values in
            guard let output = build(values) else { throw PMKError.badInput }
            return output
        })
}

/// Waits for two thenables of any value types to be fulfilled and pairs their values.
///
/// The result is rejected as soon as either input is rejected, with that error; the other input
/// keeps running. Nothing is dispatched: the result resolves on the thread that resolves the
/// last input (or the first rejected one).
///
/// When every argument is the same `Void` thenable type, ``when(fulfilled:file:line:)-(U...,_,_)``
/// is picked instead and gives a `Promise<Void>` (PromiseKit reports such calls as ambiguous);
/// annotate the result as `Promise<(Void, Void)>` to get this form. The same holds for three to
/// five thenables.
///
/// ```swift
/// when(fulfilled: fetchUser(id), fetchSettings(id)).done { user, settings in
///     show(user, settings)
/// }
/// ```
///
/// - Parameters:
///   - pu: The first thenable.
///   - pv: The second thenable.
///   - file: Where the promise was made, for the ``LogEvent``s about a lost promise in debug
///     builds (see ``CreationSite``); leave it out.
///   - line: The line that goes with `file`; leave it out.
/// - Returns: A promise of both values.
@_disfavoredOverload
@inlinable
public func when<U: Thenable, V: Thenable>(
    fulfilled pu: U, _ pv: V, file: StaticString = #fileID, line: UInt = #line
) -> Promise<(U.T, V.T)> {
    Promise(
        box: _whenTuple([_erasingValue(pu), _erasingValue(pv)], file: file, line: line) { values in
            guard values.count == 2, let u = values[0] as? U.T, let v = values[1] as? V.T else { return nil }
            return (u, v)
        })
}

/// Waits for three thenables of any value types to be fulfilled and collects their values.
///
/// The result is rejected as soon as any input is rejected, with that error; the others keep
/// running. Nothing is dispatched: the result resolves on the thread that resolves the last
/// input (or the first rejected one).
///
/// ```swift
/// when(fulfilled: fetchUser(id), fetchAvatar(id), fetchFriends(id)).done { user, avatar, friends in
///     show(user, avatar, friends)
/// }
/// ```
///
/// - Parameters:
///   - pu: The first thenable.
///   - pv: The second thenable.
///   - pw: The third thenable.
///   - file: Where the promise was made, for the ``LogEvent``s about a lost promise in debug
///     builds (see ``CreationSite``); leave it out.
///   - line: The line that goes with `file`; leave it out.
/// - Returns: A promise of the three values.
@_disfavoredOverload
@inlinable
public func when<U: Thenable, V: Thenable, W: Thenable>(
    fulfilled pu: U, _ pv: V, _ pw: W, file: StaticString = #fileID, line: UInt = #line
) -> Promise<(U.T, V.T, W.T)> {
    Promise(
        box: _whenTuple([_erasingValue(pu), _erasingValue(pv), _erasingValue(pw)], file: file, line: line) { values in
            guard values.count == 3, let u = values[0] as? U.T, let v = values[1] as? V.T, let w = values[2] as? W.T
            else { return nil }
            return (u, v, w)
        })
}

/// Waits for four thenables of any value types to be fulfilled and collects their values.
///
/// The result is rejected as soon as any input is rejected, with that error; the others keep
/// running. Nothing is dispatched: the result resolves on the thread that resolves the last
/// input (or the first rejected one).
///
/// ```swift
/// when(fulfilled: a(), b(), c(), d()).done { a, b, c, d in … }
/// ```
///
/// - Parameters:
///   - pu: The first thenable.
///   - pv: The second thenable.
///   - pw: The third thenable.
///   - px: The fourth thenable.
///   - file: Where the promise was made, for the ``LogEvent``s about a lost promise in debug
///     builds (see ``CreationSite``); leave it out.
///   - line: The line that goes with `file`; leave it out.
/// - Returns: A promise of the four values.
@_disfavoredOverload
@inlinable
public func when<U: Thenable, V: Thenable, W: Thenable, X: Thenable>(
    fulfilled pu: U, _ pv: V, _ pw: W, _ px: X, file: StaticString = #fileID, line: UInt = #line
) -> Promise<(U.T, V.T, W.T, X.T)> {
    let views = [_erasingValue(pu), _erasingValue(pv), _erasingValue(pw), _erasingValue(px)]
    return Promise(
        box: _whenTuple(views, file: file, line: line) { values in
            guard values.count == 4, let u = values[0] as? U.T, let v = values[1] as? V.T, let w = values[2] as? W.T,
                let x = values[3] as? X.T
            else { return nil }
            return (u, v, w, x)
        })
}

/// Waits for five thenables of any value types to be fulfilled and collects their values.
///
/// The result is rejected as soon as any input is rejected, with that error; the others keep
/// running. Nothing is dispatched: the result resolves on the thread that resolves the last
/// input (or the first rejected one).
///
/// ```swift
/// when(fulfilled: a(), b(), c(), d(), e()).done { a, b, c, d, e in … }
/// ```
///
/// - Parameters:
///   - pu: The first thenable.
///   - pv: The second thenable.
///   - pw: The third thenable.
///   - px: The fourth thenable.
///   - py: The fifth thenable.
///   - file: Where the promise was made, for the ``LogEvent``s about a lost promise in debug
///     builds (see ``CreationSite``); leave it out.
///   - line: The line that goes with `file`; leave it out.
/// - Returns: A promise of the five values.
@_disfavoredOverload
@inlinable
public func when<U: Thenable, V: Thenable, W: Thenable, X: Thenable, Y: Thenable>(
    fulfilled pu: U, _ pv: V, _ pw: W, _ px: X, _ py: Y, file: StaticString = #fileID,
    line: UInt = #line
) -> Promise<(U.T, V.T, W.T, X.T, Y.T)> {
    let views = [_erasingValue(pu), _erasingValue(pv), _erasingValue(pw), _erasingValue(px), _erasingValue(py)]
    return Promise(
        box: _whenTuple(views, file: file, line: line) { values in
            guard values.count == 5, let u = values[0] as? U.T, let v = values[1] as? V.T, let w = values[2] as? W.T,
                let x = values[3] as? X.T, let y = values[4] as? Y.T
            else { return nil }
            return (u, v, w, x, y)
        })
}

/// Waits for two guarantees of any value types and pairs their values.
///
/// Guarantees cannot fail, so neither can the result. It resolves on the thread that resolves
/// the last input; nothing is dispatched.
///
/// ```swift
/// when(guarantees: cachedUser(), after(seconds: 0.3).map { "ready" }).done { user, status in … }
/// ```
///
/// - Parameters:
///   - gu: The first guarantee.
///   - gv: The second guarantee.
///   - file: Where the guarantee was made, for the ``LogEvent``s about a lost guarantee in
///     debug builds (see ``CreationSite``); leave it out.
///   - line: The line that goes with `file`; leave it out.
/// - Returns: A guarantee of both values.
@inlinable
public func when<U, V>(
    guarantees gu: Guarantee<U>, _ gv: Guarantee<V>, file: StaticString = #fileID, line: UInt = #line
) -> Guarantee<(U, V)> {
    Guarantee(
        box: _whenTuple([_erasingValue(gu), _erasingValue(gv)], file: file, line: line) { values in
            guard values.count == 2, let u = values[0] as? U, let v = values[1] as? V else { return nil }
            return (u, v)
        })
}

/// Waits for three guarantees of any value types and collects their values.
///
/// Guarantees cannot fail, so neither can the result. It resolves on the thread that resolves
/// the last input; nothing is dispatched.
///
/// ```swift
/// when(guarantees: a, b, c).done { a, b, c in … }
/// ```
///
/// - Parameters:
///   - gu: The first guarantee.
///   - gv: The second guarantee.
///   - gw: The third guarantee.
///   - file: Where the guarantee was made, for the ``LogEvent``s about a lost guarantee in
///     debug builds (see ``CreationSite``); leave it out.
///   - line: The line that goes with `file`; leave it out.
/// - Returns: A guarantee of the three values.
@inlinable
public func when<U, V, W>(
    guarantees gu: Guarantee<U>, _ gv: Guarantee<V>, _ gw: Guarantee<W>, file: StaticString = #fileID,
    line: UInt = #line
) -> Guarantee<(U, V, W)> {
    Guarantee(
        box: _whenTuple([_erasingValue(gu), _erasingValue(gv), _erasingValue(gw)], file: file, line: line) { values in
            guard values.count == 3, let u = values[0] as? U, let v = values[1] as? V, let w = values[2] as? W else {
                return nil
            }
            return (u, v, w)
        })
}

/// Waits for four guarantees of any value types and collects their values.
///
/// Guarantees cannot fail, so neither can the result. It resolves on the thread that resolves
/// the last input; nothing is dispatched.
///
/// ```swift
/// when(guarantees: a, b, c, d).done { a, b, c, d in … }
/// ```
///
/// - Parameters:
///   - gu: The first guarantee.
///   - gv: The second guarantee.
///   - gw: The third guarantee.
///   - gx: The fourth guarantee.
///   - file: Where the guarantee was made, for the ``LogEvent``s about a lost guarantee in
///     debug builds (see ``CreationSite``); leave it out.
///   - line: The line that goes with `file`; leave it out.
/// - Returns: A guarantee of the four values.
@inlinable
public func when<U, V, W, X>(
    guarantees gu: Guarantee<U>, _ gv: Guarantee<V>, _ gw: Guarantee<W>, _ gx: Guarantee<X>,
    file: StaticString = #fileID, line: UInt = #line
) -> Guarantee<(U, V, W, X)> {
    let views = [_erasingValue(gu), _erasingValue(gv), _erasingValue(gw), _erasingValue(gx)]
    return Guarantee(
        box: _whenTuple(views, file: file, line: line) { values in
            guard values.count == 4, let u = values[0] as? U, let v = values[1] as? V, let w = values[2] as? W,
                let x = values[3] as? X
            else { return nil }
            return (u, v, w, x)
        })
}

/// Waits for five guarantees of any value types and collects their values.
///
/// Guarantees cannot fail, so neither can the result. It resolves on the thread that resolves
/// the last input; nothing is dispatched.
///
/// ```swift
/// when(guarantees: a, b, c, d, e).done { a, b, c, d, e in … }
/// ```
///
/// - Parameters:
///   - gu: The first guarantee.
///   - gv: The second guarantee.
///   - gw: The third guarantee.
///   - gx: The fourth guarantee.
///   - gy: The fifth guarantee.
///   - file: Where the guarantee was made, for the ``LogEvent``s about a lost guarantee in
///     debug builds (see ``CreationSite``); leave it out.
///   - line: The line that goes with `file`; leave it out.
/// - Returns: A guarantee of the five values.
@inlinable
public func when<U, V, W, X, Y>(
    guarantees gu: Guarantee<U>, _ gv: Guarantee<V>, _ gw: Guarantee<W>, _ gx: Guarantee<X>,
    _ gy: Guarantee<Y>, file: StaticString = #fileID, line: UInt = #line
) -> Guarantee<(U, V, W, X, Y)> {
    let views = [_erasingValue(gu), _erasingValue(gv), _erasingValue(gw), _erasingValue(gx), _erasingValue(gy)]
    return Guarantee(
        box: _whenTuple(views, file: file, line: line) { values in
            guard values.count == 5, let u = values[0] as? U, let v = values[1] as? V, let w = values[2] as? W,
                let x = values[3] as? X, let y = values[4] as? Y
            else { return nil }
            return (u, v, w, x, y)
        })
}
