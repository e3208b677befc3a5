import Foundation

/// A polygon condition compiled for evaluation: the exact point locator for the sign of the distance
/// to the boundary, and the edges for its size. One reference to an immutable locator: cheap to copy,
/// safe to share between threads.
struct PolygonShape: Sendable {
    let locator: PolygonLocator

    init(_ polygons: [GeoPolygon]) {
        locator = PolygonLocator(polygons)
    }

    init(locator: PolygonLocator) {
        self.locator = locator
    }

    var boundingBox: BoundingBox {
        BoundingBox(minLatitude: locator.minY, maxLatitude: locator.maxY, minLongitude: locator.minX, maxLongitude: locator.maxX)
    }

    /// Exactly GEOS's `covers` (boundary included) on the raw coordinates.
    @inline(__always)
    func covers(_ c: Coordinate) -> Bool {
        locator.covers(c.longitude, c.latitude)
    }

    /// What the frame's fix says about the polygon: inside when d ≤ −margin, outside when
    /// d > margin, near the boundary (on its inside or outside) in between.
    @inline(__always)
    func reading(_ frame: inout FixFrame) -> Reading {
        let inside = covers(frame.coordinate)
        if frame.margin <= 0 { return inside ? .inside : .outside }
        // Inside needs |d| ≥ margin (no boundary strictly closer); outside needs |d| > margin.
        if locator.boundary(withinMarginOf: &frame, inclusive: !inside) { return inside ? .nearInside : .nearOutside }
        return inside ? .inside : .outside
    }

    /// The side the fix at `c` is on with `margin` to spare, `nil` within it.
    func side(of c: Coordinate, margin: Double) -> Side? {
        var frame = FixFrame(c, margin: margin)
        return reading(&frame).side
    }

    /// Great-circle distance in metres from `c` to the nearest point of the boundary, by scanning every
    /// edge: the nearest point is found in an equirectangular frame centred on `c` (where edges straight
    /// in lon/lat stay straight), then measured with the haversine formula; beyond 1 km, or within 10°
    /// of a pole, where the frame's distortion could pick a point measurably farther, the likely edges
    /// are measured on the sphere (`PolygonLocator.nearestDistance`). Within SPEC's 0.5 % within
    /// 100 km (checked against a fine search in the tests). `side(of:margin:)` uses the same measure
    /// through the locator's indexes; this plain scan is its oracle. Edges on the antimeridian or at
    /// a pole (`PolygonLocator.isSeamEdge`) are no boundary: infinity when every edge is one.
    func distanceToBoundary(from c: Coordinate) -> Double {
        PolygonLocator.nearestDistance(from: c, edges: locator.forEveryBoundaryEdge)
    }
}

/// A side of a condition's boundary.
enum Side: UInt8, Sendable, Codable {
    case inside
    case outside
}

/// What one fix says about one geographic condition: confidently inside or outside (its margin to
/// spare), or within its margin of the boundary, on the inside (boundary included) or the outside.
///
/// The cover grid may know only the side of the boundary a fix is on, not how far: the
/// `…Unmeasured` readings, which only `ConditionCatalog.collectReadings` gives (and the reading from
/// a grid entry, `ConditionCatalog.reading(_:_:cell:clearance:)`). A pair settled on that side cannot
/// change whether the fix is within its margin or not, so the device measures the rest only
/// (`DeviceState.apply`).
enum Reading: UInt8, Sendable {
    case inside
    case outside
    case nearInside
    case nearOutside
    case insideUnmeasured
    case outsideUnmeasured

    /// The side the fix is confidently on, `nil` within the margin (or not measured against it).
    @inline(__always)
    var side: Side? {
        switch self {
        case .inside: .inside
        case .outside: .outside
        case .nearInside, .nearOutside, .insideUnmeasured, .outsideUnmeasured: nil
        }
    }

    /// The side of the boundary itself.
    @inline(__always)
    var sign: Side { self == .inside || self == .nearInside || self == .insideUnmeasured ? .inside : .outside }

    /// Whether only the side is known (`sign`), not the distance against the margin.
    @inline(__always)
    var isUnmeasured: Bool { self == .insideUnmeasured || self == .outsideUnmeasured }
}
