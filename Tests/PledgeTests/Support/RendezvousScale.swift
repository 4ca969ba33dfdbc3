import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// How big the stress tests are.
///
/// ``factor`` is read once from the `PLEDGE_STRESS_SCALE` environment variable, a positive
/// decimal number (`0.25` runs a quarter of the iterations); full size when it is unset or
/// invalid. ``underThreadSanitizer`` tells whether the ThreadSanitizer runtime is loaded, for
/// the few tests whose point is not concurrency and that would be too slow under it.
enum RendezvousScale {
    /// The factor, in `(0, 1]` in practice; anything above 1 makes the tests bigger.
    static let factor: Double = {
        guard let text = ProcessInfo.processInfo.environment["PLEDGE_STRESS_SCALE"],
            let value = Double(text), value > 0, value.isFinite
        else { return 1 }
        return value
    }()

    /// Whether this process runs under ThreadSanitizer (`swift test --sanitize=thread`), which
    /// makes every memory access several times slower.
    static let underThreadSanitizer: Bool = {
        guard let process = dlopen(nil, RTLD_NOW) else { return false }
        defer { dlclose(process) }
        return dlsym(process, "__tsan_init") != nil
    }()

    /// `count` scaled by ``factor``, never below `minimum`.
    static func scaled(_ count: Int, minimum: Int = 1) -> Int {
        max(minimum, Int((Double(count) * factor).rounded()))
    }
}
