/// A bounding box in single precision, rounded outwards so that it holds the box it was made from:
/// 16 bytes where `BoundingBox?` takes 40, for the condition index's box per condition. Float's
/// step at 180° is 1.5 × 10⁻⁵° (under 2 m), which only makes an index query return a few more
/// candidates for the exact tests.
struct CompactBox: Sendable {
    private var minLatitude: Float, maxLatitude: Float, minLongitude: Float, maxLongitude: Float

    init(_ box: BoundingBox) {
        minLatitude = Self.below(box.minLatitude)
        maxLatitude = Self.above(box.maxLatitude)
        minLongitude = Self.below(box.minLongitude)
        maxLongitude = Self.above(box.maxLongitude)
    }

    private init(removed: ()) {
        minLatitude = .infinity; maxLatitude = -.infinity; minLongitude = .infinity; maxLongitude = -.infinity
    }

    /// The mark of a removed condition's slot.
    static let removed = CompactBox(removed: ())

    /// The box in double precision; `nil` for `removed`.
    var box: BoundingBox? {
        guard minLatitude <= maxLatitude else { return nil }
        return BoundingBox(minLatitude: Double(minLatitude), maxLatitude: Double(maxLatitude),
                           minLongitude: Double(minLongitude), maxLongitude: Double(maxLongitude))
    }

    private static func below(_ x: Double) -> Float {
        let f = Float(x)
        return Double(f) > x ? f.nextDown : f
    }

    private static func above(_ x: Double) -> Float {
        let f = Float(x)
        return Double(f) < x ? f.nextUp : f
    }
}
