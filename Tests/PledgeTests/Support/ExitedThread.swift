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
/// - Parameter atExit: run on the thread by a thread-exit destructor of its own, after every
///   destructor of the first round, Pledge's among them, has run.
/// - Returns: whether the thread could be started.
func onAThreadThatExits(_ body: @escaping @Sendable () -> Void, atExit: (@Sendable () -> Void)? = nil) -> Bool {
    let context = Unmanaged.passRetained(
        ExitAction {
            body()
            // Armed in the first round, the key runs `atExit` in the second.
            if let atExit { lateExitKey.arm(ExitAction { lateExitKey.arm(ExitAction(atExit)) }) }
        }
    ).toOpaque()
    #if canImport(Darwin)
        var thread: pthread_t? = nil
    #else
        var thread = pthread_t()
    #endif
    let started = pthread_create(
        &thread, nil,
        { context in
            #if canImport(Darwin)
                let body = Unmanaged<ExitAction>.fromOpaque(context).takeRetainedValue()
            #else
                guard let context else { return nil }
                let body = Unmanaged<ExitAction>.fromOpaque(context).takeRetainedValue()
            #endif
            body.run()
            return nil
        }, context)
    guard started == 0 else {
        Unmanaged<ExitAction>.fromOpaque(context).release()
        return false
    }
    #if canImport(Darwin)
        guard let thread else { return false }
    #endif
    return pthread_join(thread, nil) == 0
}

/// A closure, as a thread or a thread-exit destructor takes it.
private final class ExitAction: Sendable {
    let run: @Sendable () -> Void
    init(_ run: @escaping @Sendable () -> Void) { self.run = run }
}

/// A thread-exit key whose destructor runs the action the thread armed it with.
private struct LateExitKey: Sendable {
    let key: pthread_key_t

    init() {
        var key = pthread_key_t()
        pthread_key_create(&key) { context in
            #if canImport(Darwin)
                Unmanaged<ExitAction>.fromOpaque(context).takeRetainedValue().run()
            #else
                guard let context else { return }
                Unmanaged<ExitAction>.fromOpaque(context).takeRetainedValue().run()
            #endif
        }
        self.key = key
    }

    /// Runs `action` as the calling thread exits.
    func arm(_ action: ExitAction) {
        pthread_setspecific(key, Unmanaged.passRetained(action).toOpaque())
    }
}

private let lateExitKey = LateExitKey()
