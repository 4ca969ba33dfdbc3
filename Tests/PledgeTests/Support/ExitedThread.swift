#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs `body` on a new POSIX thread and joins it: when this returns, the thread has exited and
/// its thread-exit destructors (Pledge's among them) have run.
///
/// - Returns: whether the thread could be started.
func onAThreadThatExits(_ body: @escaping @Sendable () -> Void) -> Bool {
    final class Body {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }
    let context = Unmanaged.passRetained(Body(body)).toOpaque()
    #if canImport(Darwin)
        var thread: pthread_t? = nil
    #else
        var thread = pthread_t()
    #endif
    let started = pthread_create(
        &thread, nil,
        { context in
            #if canImport(Darwin)
                let body = Unmanaged<Body>.fromOpaque(context).takeRetainedValue()
            #else
                guard let context else { return nil }
                let body = Unmanaged<Body>.fromOpaque(context).takeRetainedValue()
            #endif
            body.run()
            return nil
        }, context)
    guard started == 0 else {
        Unmanaged<Body>.fromOpaque(context).release()
        return false
    }
    #if canImport(Darwin)
        guard let thread else { return false }
    #endif
    return pthread_join(thread, nil) == 0
}
