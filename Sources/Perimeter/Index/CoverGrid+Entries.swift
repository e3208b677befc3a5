import Foundation

// What a cell lists of a condition, and how it is packed into 32 bits.
extension CoverGrid {
    /// What a cell knows of one condition near it, as a query reads it.
    struct Entry: Sendable, Equatable {
        let condition: Int32
        /// The centre's side (lowest bit: 1 inside) above its clearance in steps; 0 when the side is
        /// unknown (see `EntryCode`).
        fileprivate let code: UInt32

        /// Whether the cell's centre keeps far enough from the boundary that every point `need` was
        /// asked for is on the centre's side (`isInside`).
        @inline(__always)
        func decides(_ need: Need) -> Bool { code >= need.code }

        /// Whether the cell's centre is inside the condition (meaningful once `decides` says so).
        @inline(__always)
        var isInside: Bool { code & 1 == 1 }
    }

    /// How far from the boundary a cell's centre must stay to decide a point: the least code
    /// (`Entry.decides(_:)`), from `CoverGrid.need(_:)`.
    struct Need {
        fileprivate let code: UInt32
    }

    /// How an entry is packed into a `UInt32`: the condition's number in the high bits, and in the low
    /// `codeBits` 0 when the centre's side is unknown, else the side (lowest bit: 1 inside) above which
    /// the clearance counts whole `unit`s, rounded down so that it stays a lower bound.
    ///
    /// The condition takes as many bits as the catalogue needs, at least 20: up to a million
    /// conditions the clearance has 2,047 steps (some 0.1 m each), at 16 million still 127. Clearances
    /// past the last step are capped there, at `unit × maxStep`, which the grid makes larger than any
    /// cell's half-diagonal plus its reach: enough to decide every point the cell answers for.
    /// Decided by comparing codes, an entry costs a query no conversion to floating point.
    struct EntryCode: Sendable, Equatable {
        let codeBits: UInt32
        let unit: Double
        private let stepsPerMetre: Double
        private let maxStep: UInt32

        /// The most conditions any grid packs, so that at least 127 steps remain; a larger catalogue
        /// goes without a cover grid (the condition index answers for it).
        static let largestCatalogue = 1 << 24

        /// A packing for conditions `0 ..< count` that stores clearances up to `largestClearance`.
        init(conditions count: Int, largestClearance: Double) {
            precondition(count <= Self.largestCatalogue)
            let conditionBits = max(20, Int.bitWidth - max(0, count - 1).leadingZeroBitCount)
            codeBits = UInt32(32 - conditionBits)
            maxStep = (1 << (codeBits - 1)) - 1
            unit = largestClearance / Double(maxStep)
            stepsPerMetre = 1 / unit
        }

        /// `clearance`: metres, a lower bound (rounded down to a step).
        @inline(__always)
        func pack(condition: Int32, side: Relation, clearance: Double) -> UInt32 {
            let step = side == .crossed ? 0 : UInt32(min(Double(maxStep), max(0, (clearance / unit).rounded(.down))))
            let code = step == 0 ? 0 : step << 1 | (side == .inside ? 1 : 0)
            return UInt32(bitPattern: condition) << codeBits | code
        }

        @inline(__always)
        func unpack(_ packed: UInt32) -> Entry {
            Entry(condition: Int32(bitPattern: packed >> codeBits), code: packed & ((1 << codeBits) - 1))
        }

        /// The clearance an entry stores, in metres.
        @inline(__always)
        func clearance(_ entry: Entry) -> Double { Double(entry.code >> 1) * unit }

        /// The least code whose clearance is more than `metres`: step ⌊metres / unit⌋ + 1, so that
        /// step × unit > metres (a product's rounding rather than a division's is far inside the
        /// millimetre the grid takes off every clearance); past the last step, one no entry reaches.
        @inline(__always)
        func need(_ metres: Double) -> Need {
            let step = min(Double(maxStep) + 1, max(0, metres * stepsPerMetre).rounded(.down) + 1)
            return Need(code: UInt32(step) << 1)
        }
    }

    enum Relation: UInt8, Sendable {
        case inside
        case outside
        case crossed
    }
}
