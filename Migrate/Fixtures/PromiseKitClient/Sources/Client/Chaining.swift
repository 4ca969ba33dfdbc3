#if canImport(PromiseKit)
    import PromiseKit
#endif

// A networking library's convenience: `pipe(to:)` that returns the thenable, declared in an
// extension. Its closure is not `@Sendable`, so against Pledge the inner call would resolve to
// the extension itself and recurse for ever; pledge-migrate makes the closure `@Sendable`.
extension Thenable {
    func pipe(to block: @escaping (Result<T>) -> Void) -> Self {
        pipe(to: block)
        return self
    }
}

func chain(_ text: String) -> Promise<String> {
    firstly {
        parse(text)
    }.map {
        $0 * 2
    }.pipe { result in
        print("piped: \(describe(result))")
    }.then { doubled -> Promise<String> in
        PromiseKit.Promise.value("doubled \(doubled)")
    }.ensure {
        print("ensure ran")
    }
}
