// `when` over 2 to 5 thenables of different value types. The fan-in waits for `Void` views of
// the inputs, so that the first rejection still rejects at once. Once it is fulfilled, every
// input is resolved, and the tuple is read from them by inline handlers that run immediately.

/// Waits for the `Void` view of every input, then lets `read` resolve the result from the inputs,
/// which are resolved by then. A rejection passes straight to the result.
@inlinable
func _whenAll<Output: Sendable>(
    _ inputs: [Promise<Void>],
    read: @escaping @Sendable (EmptyBox<Result<Output, Error>>) -> _PledgeStep?
) -> EmptyBox<Result<Output, Error>> {
    let all = _fanInVoid(inputs)
    let box: EmptyBox<Result<Output, Error>> = pendingBox()
    Trampoline.run(
        all.inspect(nil) { _, result in
            if case .failure(let error) = result { return box.resolve(.failure(error)) }
            return read(box)
        })
    return box
}

/// Waits for the `Void` view of every guarantee, then lets `read` resolve the result.
@inlinable
func _whenAll<Output: Sendable>(
    guarantees inputs: [Guarantee<Void>],
    read: @escaping @Sendable (EmptyBox<Result<Output, Error>>) -> _PledgeStep?
) -> EmptyBox<Result<Output, Error>> {
    let all = _fanInVoid(inputs)
    let box: EmptyBox<Result<Output, Error>> = pendingBox()
    Trampoline.run(all.inspect(nil) { _, _ in read(box) })
    return box
}

/// Waits for two thenables of any value types to be fulfilled and pairs their values.
///
/// The result is rejected as soon as either input is rejected, with that error; the other input
/// keeps running. Nothing is dispatched: the result resolves on the thread that resolves the
/// last input (or the first rejected one).
///
/// When every argument is the same `Void` thenable type, ``when(fulfilled:)-(U...)`` is picked
/// instead and gives a `Promise<Void>` (PromiseKit reports such calls as ambiguous); annotate
/// the result as `Promise<(Void, Void)>` to get this form. The same holds for three to five
/// thenables.
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
/// - Returns: A promise of both values.
@_disfavoredOverload
@inlinable
public func when<U: Thenable, V: Thenable>(fulfilled pu: U, _ pv: V) -> Promise<(U.T, V.T)> {
    Promise(
        box: _whenAll([pu.asVoid(), pv.asVoid()]) { box in
            pu._pipe(nil) { _, ru in
                pv._pipe(nil) { _, rv in
                    box.resolve(ru.flatMap { u in rv.map { v in (u, v) } })
                }
            }
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
/// - Returns: A promise of the three values.
@_disfavoredOverload
@inlinable
public func when<U: Thenable, V: Thenable, W: Thenable>(
    fulfilled pu: U, _ pv: V, _ pw: W
) -> Promise<(U.T, V.T, W.T)> {
    Promise(
        box: _whenAll([pu.asVoid(), pv.asVoid(), pw.asVoid()]) { box in
            pu._pipe(nil) { _, ru in
                pv._pipe(nil) { _, rv in
                    pw._pipe(nil) { _, rw in
                        box.resolve(ru.flatMap { u in rv.flatMap { v in rw.map { w in (u, v, w) } } })
                    }
                }
            }
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
/// - Returns: A promise of the four values.
@_disfavoredOverload
@inlinable
public func when<U: Thenable, V: Thenable, W: Thenable, X: Thenable>(
    fulfilled pu: U, _ pv: V, _ pw: W, _ px: X
) -> Promise<(U.T, V.T, W.T, X.T)> {
    Promise(
        box: _whenAll([pu.asVoid(), pv.asVoid(), pw.asVoid(), px.asVoid()]) { box in
            pu._pipe(nil) { _, ru in
                pv._pipe(nil) { _, rv in
                    pw._pipe(nil) { _, rw in
                        px._pipe(nil) { _, rx in
                            box.resolve(
                                ru.flatMap { u in
                                    rv.flatMap { v in rw.flatMap { w in rx.map { x in (u, v, w, x) } } }
                                })
                        }
                    }
                }
            }
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
/// - Returns: A promise of the five values.
@_disfavoredOverload
@inlinable
public func when<U: Thenable, V: Thenable, W: Thenable, X: Thenable, Y: Thenable>(
    fulfilled pu: U, _ pv: V, _ pw: W, _ px: X, _ py: Y
) -> Promise<(U.T, V.T, W.T, X.T, Y.T)> {
    Promise(
        box: _whenAll([pu.asVoid(), pv.asVoid(), pw.asVoid(), px.asVoid(), py.asVoid()]) { box in
            pu._pipe(nil) { _, ru in
                pv._pipe(nil) { _, rv in
                    pw._pipe(nil) { _, rw in
                        px._pipe(nil) { _, rx in
                            py._pipe(nil) { _, ry in
                                box.resolve(
                                    ru.flatMap { u in
                                        rv.flatMap { v in
                                            rw.flatMap { w in
                                                rx.flatMap { x in ry.map { y in (u, v, w, x, y) } }
                                            }
                                        }
                                    })
                            }
                        }
                    }
                }
            }
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
/// - Returns: A guarantee of both values.
@inlinable
public func when<U, V>(guarantees gu: Guarantee<U>, _ gv: Guarantee<V>) -> Guarantee<(U, V)> {
    Guarantee(
        box: _whenAll(guarantees: [gu.asVoid(), gv.asVoid()]) { box in
            gu._pipe(nil) { _, ru in
                gv._pipe(nil) { _, rv in
                    box.resolve(ru.flatMap { u in rv.map { v in (u, v) } })
                }
            }
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
/// - Returns: A guarantee of the three values.
@inlinable
public func when<U, V, W>(
    guarantees gu: Guarantee<U>, _ gv: Guarantee<V>, _ gw: Guarantee<W>
) -> Guarantee<(U, V, W)> {
    Guarantee(
        box: _whenAll(guarantees: [gu.asVoid(), gv.asVoid(), gw.asVoid()]) { box in
            gu._pipe(nil) { _, ru in
                gv._pipe(nil) { _, rv in
                    gw._pipe(nil) { _, rw in
                        box.resolve(ru.flatMap { u in rv.flatMap { v in rw.map { w in (u, v, w) } } })
                    }
                }
            }
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
/// - Returns: A guarantee of the four values.
@inlinable
public func when<U, V, W, X>(
    guarantees gu: Guarantee<U>, _ gv: Guarantee<V>, _ gw: Guarantee<W>, _ gx: Guarantee<X>
) -> Guarantee<(U, V, W, X)> {
    Guarantee(
        box: _whenAll(guarantees: [gu.asVoid(), gv.asVoid(), gw.asVoid(), gx.asVoid()]) { box in
            gu._pipe(nil) { _, ru in
                gv._pipe(nil) { _, rv in
                    gw._pipe(nil) { _, rw in
                        gx._pipe(nil) { _, rx in
                            box.resolve(
                                ru.flatMap { u in
                                    rv.flatMap { v in rw.flatMap { w in rx.map { x in (u, v, w, x) } } }
                                })
                        }
                    }
                }
            }
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
/// - Returns: A guarantee of the five values.
@inlinable
public func when<U, V, W, X, Y>(
    guarantees gu: Guarantee<U>, _ gv: Guarantee<V>, _ gw: Guarantee<W>, _ gx: Guarantee<X>,
    _ gy: Guarantee<Y>
) -> Guarantee<(U, V, W, X, Y)> {
    let inputs = [gu.asVoid(), gv.asVoid(), gw.asVoid(), gx.asVoid(), gy.asVoid()]
    return Guarantee(
        box: _whenAll(guarantees: inputs) { box in
            gu._pipe(nil) { _, ru in
                gv._pipe(nil) { _, rv in
                    gw._pipe(nil) { _, rw in
                        gx._pipe(nil) { _, rx in
                            gy._pipe(nil) { _, ry in
                                box.resolve(
                                    ru.flatMap { u in
                                        rv.flatMap { v in
                                            rw.flatMap { w in
                                                rx.flatMap { x in ry.map { y in (u, v, w, x, y) } }
                                            }
                                        }
                                    })
                            }
                        }
                    }
                }
            }
        })
}
