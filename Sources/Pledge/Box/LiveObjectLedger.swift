#if DEBUG
    import Synchronization

    /// Debug builds only: counts the boxes made while a ledger is current (inside
    /// `LiveObjectLedger.$current.withValue(ledger) { … }`) and the blocks dispatched for them
    /// and not yet run, so that a test can check that a chain of any kind frees every box and
    /// leaves no work behind. A box keeps the ledger current where it was made.
    @usableFromInline
    final class LiveObjectLedger: Sendable {
        /// The ledger boxes made now are counted in.
        @TaskLocal static var current: LiveObjectLedger?

        let boxes = Atomic<Int>(0)
        let tokens = Atomic<Int>(0)
        let made = Atomic<Int>(0)

        /// Boxes counted here in all, freed or not.
        var boxesMade: Int { made.load(ordering: .acquiring) }

        /// Boxes counted here that have not been freed.
        var liveBoxes: Int { boxes.load(ordering: .acquiring) }

        /// Work on those boxes scheduled and not yet done.
        var liveTokens: Int { tokens.load(ordering: .acquiring) }

        @usableFromInline
        func boxMade() {
            boxes.add(1, ordering: .relaxed)
            made.add(1, ordering: .relaxed)
        }

        @usableFromInline
        func boxFreed() { boxes.subtract(1, ordering: .acquiringAndReleasing) }

        /// Counts work scheduled (`+1`) or done (`-1`).
        @usableFromInline
        func work(_ delta: Int) { tokens.add(delta, ordering: .acquiringAndReleasing) }
    }
#endif
