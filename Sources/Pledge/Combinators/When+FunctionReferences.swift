// The array forms of `when` and `race` without `file:` and `line:`, for PromiseKit code that
// passes them as functions: `promises.then(when(fulfilled:))`. A function reference names every
// parameter, so the forms in When.swift and Race.swift, which also take the caller's site, would
// not match it. These forms are disfavoured: a call always picks the one that records its site.
// They are hidden from the documentation, which lists the forms a call uses.

@_disfavoredOverload @_documentation(visibility: internal) @inlinable
public func when<U: Thenable>(fulfilled thenables: [U]) -> Promise<[U.T]> {
    when(fulfilled: thenables, file: #fileID, line: #line)
}

@_disfavoredOverload @_documentation(visibility: internal) @inlinable
public func when<U: Thenable>(fulfilled thenables: [U]) -> Promise<Void> where U.T == Void {
    when(fulfilled: thenables, file: #fileID, line: #line)
}

@_disfavoredOverload @_documentation(visibility: internal) @inlinable
public func when<T>(resolved promises: [Promise<T>]) -> Guarantee<[Result<T, Error>]> {
    when(resolved: promises, file: #fileID, line: #line)
}

@_disfavoredOverload @_documentation(visibility: internal) @inlinable
public func when<U: Thenable>(resolved thenables: [U]) -> Guarantee<[Result<U.T, Error>]> {
    when(resolved: thenables, file: #fileID, line: #line)
}

@_disfavoredOverload @_documentation(visibility: internal) @inlinable
public func when<T>(guarantees: [Guarantee<T>]) -> Guarantee<[T]> {
    when(guarantees: guarantees, file: #fileID, line: #line)
}

@_disfavoredOverload @_documentation(visibility: internal) @inlinable
public func when(guarantees: [Guarantee<Void>]) -> Guarantee<Void> {
    when(guarantees: guarantees, file: #fileID, line: #line)
}

@_disfavoredOverload @_documentation(visibility: internal) @inlinable
public func race<U: Thenable>(_ thenables: [U]) -> Promise<U.T> {
    race(thenables, file: #fileID, line: #line)
}

@_disfavoredOverload @_documentation(visibility: internal) @inlinable
public func race<U: Thenable>(fulfilled thenables: [U]) -> Promise<U.T> {
    race(fulfilled: thenables, file: #fileID, line: #line)
}
