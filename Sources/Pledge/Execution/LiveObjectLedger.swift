#if DEBUG
    import Synchronization

    /// Debug builds only: counts the boxes made while a ledger is current, and the counted
    /// references (``Retained`` tokens: the steps, tails and handler calls of the engine) taken
    /// on them, so that a test can check that a chain of any kind gives back everything it took.
    ///
    /// A ledger is current inside `LiveObjectLedger.$current.withValue(ledger) { … }`, for code
    /// that runs in that task; a box remembers the ledger current where it was made, so that its
    /// tokens are counted whatever thread takes them. Release builds have none of this.
    @usableFromInline
    final class LiveObjectLedger: Sendable {
        /// The ledger boxes made now are counted in.
        @TaskLocal static var current: LiveObjectLedger?

        let boxes = Atomic<Int>(0)
        let tokens = Atomic<Int>(0)
        let made = Atomic<Int>(0)

        init() {}

        /// Boxes counted here in all, freed or not.
        var boxesMade: Int { made.load(ordering: .acquiring) }

        /// Boxes counted here that have not been freed.
        var liveBoxes: Int { boxes.load(ordering: .acquiring) }

        /// Tokens on those boxes that have not been given back.
        var liveTokens: Int { tokens.load(ordering: .acquiring) }

        /// Counts a box being made, in the current ledger if there is one.
        ///
        /// - Returns: that ledger, for the box to keep.
        @usableFromInline
        static func enrolBox() -> LiveObjectLedger? {
            let ledger = current
            ledger?.boxes.add(1, ordering: .relaxed)
            ledger?.made.add(1, ordering: .relaxed)
            return ledger
        }

        @usableFromInline
        func boxFreed() {
            boxes.subtract(1, ordering: .acquiringAndReleasing)
        }

        /// Counts a token taken on `object`, when it is a box made under a ledger.
        @usableFromInline
        static func tokenTaken(on object: AnyObject) {
            (object as? any LedgerCounted)?.ledger?.tokens.add(1, ordering: .relaxed)
        }

        /// Counts a token on `object` given back (or turned back into an ordinary reference).
        @usableFromInline
        static func tokenGivenBack(on object: AnyObject) {
            (object as? any LedgerCounted)?.ledger?.tokens.subtract(1, ordering: .acquiringAndReleasing)
        }
    }

    /// An object counted in a ``LiveObjectLedger``: a box.
    @usableFromInline
    protocol LedgerCounted: AnyObject {
        var ledger: LiveObjectLedger? { get }
    }
#endif
