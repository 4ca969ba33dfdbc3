/// Where the generator's choices come from: a seeded generator, or a fuzzer's bytes.
protocol Entropy {
    /// A number in `0..<bound` (`bound` > 0).
    mutating func below(_ bound: Int) -> Int
}

extension Entropy {
    mutating func chance(_ numerator: Int, in denominator: Int) -> Bool { below(denominator) < numerator }

    mutating func pick<C: Collection>(_ elements: C) -> C.Element? where C.Index == Int {
        elements.isEmpty ? nil : elements[elements.startIndex + below(elements.count)]
    }
}

/// SplitMix64: the same seed always gives the same choices, on every platform.
struct SeededEntropy: Entropy {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func below(_ bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        mixed ^= mixed >> 31
        return Int(mixed % UInt64(bound))
    }
}

/// A fuzzer's input read as choices, one byte (or two, for large bounds) per choice; zeros
/// once the bytes run out, so that every input is a program.
struct ByteEntropy: Entropy {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    mutating func below(_ bound: Int) -> Int {
        var number = 0
        for _ in 0..<(bound > 256 ? 2 : 1) {
            number = number << 8 | Int(offset < bytes.count ? bytes[offset] : 0)
            offset += 1
        }
        return number % bound
    }
}
