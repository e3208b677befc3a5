/// An axis-aligned box in longitude/latitude degrees.
public struct BoundingBox: Sendable, Hashable {
    public var minLatitude: Double
    public var maxLatitude: Double
    public var minLongitude: Double
    public var maxLongitude: Double

    public init(minLatitude: Double, maxLatitude: Double, minLongitude: Double, maxLongitude: Double) {
        self.minLatitude = minLatitude
        self.maxLatitude = maxLatitude
        self.minLongitude = minLongitude
        self.maxLongitude = maxLongitude
    }

    /// The box around a set of coordinates; `nil` when there are none.
    init?<S: Sequence>(enclosing coordinates: S) where S.Element == Coordinate {
        var iterator = coordinates.makeIterator()
        guard let first = iterator.next() else { return nil }
        var box = BoundingBox(minLatitude: first.latitude, maxLatitude: first.latitude,
                              minLongitude: first.longitude, maxLongitude: first.longitude)
        while let c = iterator.next() {
            box.minLatitude = min(box.minLatitude, c.latitude)
            box.maxLatitude = max(box.maxLatitude, c.latitude)
            box.minLongitude = min(box.minLongitude, c.longitude)
            box.maxLongitude = max(box.maxLongitude, c.longitude)
        }
        self = box
    }

    func intersects(_ other: BoundingBox) -> Bool {
        minLatitude <= other.maxLatitude && other.minLatitude <= maxLatitude
            && minLongitude <= other.maxLongitude && other.minLongitude <= maxLongitude
    }

    func union(_ other: BoundingBox) -> BoundingBox {
        BoundingBox(minLatitude: min(minLatitude, other.minLatitude),
                    maxLatitude: max(maxLatitude, other.maxLatitude),
                    minLongitude: min(minLongitude, other.minLongitude),
                    maxLongitude: max(maxLongitude, other.maxLongitude))
    }

    /// Calls `body` with the box's pieces within −180…180: a box that runs past the antimeridian
    /// wraps round as a second piece. No allocation, as the per-fix query calls it.
    func forEachPieceWithinLongitudeRange(_ body: (BoundingBox) -> Void) {
        if minLongitude < -180 {
            body(BoundingBox(minLatitude: minLatitude, maxLatitude: maxLatitude,
                             minLongitude: minLongitude + 360, maxLongitude: 180))
        }
        if maxLongitude > 180 {
            body(BoundingBox(minLatitude: minLatitude, maxLatitude: maxLatitude,
                             minLongitude: -180, maxLongitude: maxLongitude - 360))
        }
        body(BoundingBox(minLatitude: minLatitude, maxLatitude: maxLatitude,
                         minLongitude: max(-180, minLongitude), maxLongitude: min(180, maxLongitude)))
    }
}
