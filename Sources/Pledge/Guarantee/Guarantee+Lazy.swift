extension Guarantee {
    /// Makes a pending guarantee whose `body` runs only once something waits for it.
    ///
    /// `body` runs exactly once, synchronously, on the thread of the first attachment (an
    /// operator such as `map` or `done`, `pipe(to:)`, `wait()`, `async()`, `when`, `race`, or a
    /// `then` whose closure returns this guarantee), right after that first handler is attached,
    /// with the function that resolves the guarantee. Only the first call of that function
    /// counts; if it is released uncalled, Pledge logs ``LogEvent/pendingGuaranteeDeallocated(site:)``.
    /// Reading ``isPending``, ``value``, ``result`` or ``description`` does not start `body`.
    ///
    /// A lazy guarantee that nothing ever attaches to is released with `body`, unrun, and logs
    /// nothing.
    ///
    /// ```swift
    /// let answer = Guarantee<Int>.lazy { resolve in
    ///     computeInBackground { resolve($0) }
    /// }
    /// // Nothing is computed yet; this `done` starts the computation.
    /// answer.done { print($0) }
    /// ```
    ///
    /// - Parameters:
    ///   - body: Resolves the guarantee through the function it is given.
    ///   - file: Where the guarantee was made, for the ``LogEvent``s about a lost guarantee in
    ///     debug builds (see ``CreationSite``); leave it out.
    ///   - line: The line that goes with `file`; leave it out.
    /// - Returns: A pending guarantee that starts `body` on its first attachment.
    public static func lazy(
        _ body: @escaping @Sendable (@escaping @Sendable (T) -> Void) -> Void,
        file: StaticString = #fileID, line: UInt = #line
    ) -> Guarantee<T> {
        let box = EmptyBox<Result<T, Error>>(
            site: (file, line),
            lazy: { box in
                // The box hands itself over: it is this very box.
                body(GuaranteeSealer(box as! EmptyBox<Result<T, Error>>).resolve)
            })
        return Guarantee(box: box)
    }
}
