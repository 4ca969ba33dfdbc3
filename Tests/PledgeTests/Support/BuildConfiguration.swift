import Testing

/// Whether this is a debug build, where Pledge records creation sites and counts live objects.
enum BuildConfiguration {
    static let isDebug: Bool = {
        #if DEBUG
            return true
        #else
            return false
        #endif
    }()
}

extension Trait where Self == ConditionTrait {
    /// For a test of what only debug builds have (creation sites, the live-object ledger): a
    /// release run reports it as skipped, rather than passing a body compiled away.
    static var debugBuildsOnly: Self {
        .enabled(if: BuildConfiguration.isDebug, "checks what only debug builds record")
    }
}
