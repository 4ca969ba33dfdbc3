extension Promise {
    /// Makes a pending promise whose `body` runs only once something waits for it.
    ///
    /// `body` runs exactly once, synchronously, on the thread of the first attachment (an
    /// operator such as `map` or `done`, `pipe(to:)`, `wait()`, `async()`, `when`, `race`, or a
    /// `then` whose closure returns this promise), right after that first handler is attached.
    /// Reading ``isPending``, ``value``, ``result`` or ``description`` does not start it. If `body`
    /// throws, the promise is rejected with the error (unless `body` resolved it first).
    ///
    /// A lazy promise cancelled with ``cancel()`` before anything is attached never runs `body`,
    /// and releases it at once. One that nothing ever attaches to is released with `body`, unrun,
    /// and logs nothing.
    ///
    /// ```swift
    /// let config = Promise<Config>.lazy { seal in
    ///     loadConfig { config, error in seal.resolve(config, error) }
    /// }
    /// // Nothing is loaded yet; this `done` starts the load.
    /// config.done { print($0) }.catch { print($0) }
    /// ```
    ///
    /// - Parameters:
    ///   - body: Resolves the promise through the resolver it is given; may throw.
    ///   - file: Where the promise was made, for the ``LogEvent``s about a lost promise in debug
    ///     builds (see ``CreationSite``); leave it out.
    ///   - line: The line that goes with `file`; leave it out.
    /// - Returns: A pending promise that starts `body` on its first attachment.
    public static func lazy(
        _ body: @escaping @Sendable (Resolver<T>) throws -> Void, file: StaticString = #fileID, line: UInt = #line
    ) -> Promise<T> {
        let box = EmptyBox<Result<T, Error>>(
            site: (file, line),
            lazy: { box in
                // The box hands itself over: it is this very box.
                let resolver = Resolver(box as! EmptyBox<Result<T, Error>>)
                do {
                    try body(resolver)
                } catch {
                    resolver.reject(error)
                }
            })
        return Promise(box: box)
    }
}
