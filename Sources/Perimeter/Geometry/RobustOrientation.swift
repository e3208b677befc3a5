/// The orientation predicate GEOS uses, reproduced operation for operation so that point-in-polygon
/// answers match GEOS's `covers` bit for bit: Shewchuk's floating-point filter, then double-double
/// arithmetic (GEOS's `CGAlgorithmsDD::orientationIndex`) when the filter cannot decide.
enum RobustOrientation {
    /// 1 if q is left of (counter-clockwise from) p1→p2, −1 if right, 0 if collinear.
    @inline(__always)
    static func index(_ p1x: Double, _ p1y: Double, _ p2x: Double, _ p2y: Double, _ qx: Double, _ qy: Double) -> Int {
        let detLeft = (p1x - qx) * (p2y - qy)
        let detRight = (p1y - qy) * (p2x - qx)
        let det = detLeft - detRight
        let detSum: Double
        if detLeft > 0 {
            if detRight <= 0 { return sign(det) }
            detSum = detLeft + detRight
        } else if detLeft < 0 {
            if detRight >= 0 { return sign(det) }
            detSum = -detLeft - detRight
        } else {
            return sign(det)
        }
        let errorBound = 1e-15 * detSum
        if det >= errorBound || -det >= errorBound { return sign(det) }
        return exactIndex(p1x, p1y, p2x, p2y, qx, qy)
    }

    @inline(__always)
    private static func sign(_ x: Double) -> Int { x < 0 ? -1 : (x > 0 ? 1 : 0) }

    /// The double-double evaluation of (p2 − p1) × (q − p2), as GEOS does it.
    @inline(never)
    static func exactIndex(_ p1x: Double, _ p1y: Double, _ p2x: Double, _ p2y: Double, _ qx: Double, _ qy: Double) -> Int {
        var dx1 = DoubleDouble(p2x); dx1.add(-p1x, 0)
        var dy1 = DoubleDouble(p2y); dy1.add(-p1y, 0)
        var dx2 = DoubleDouble(qx); dx2.add(-p2x, 0)
        var dy2 = DoubleDouble(qy); dy2.add(-p2y, 0)
        dx1.multiply(dy2.hi, dy2.lo)
        dy1.multiply(dx2.hi, dx2.lo)
        dx1.add(-dy1.hi, -dy1.lo)
        if dx1.hi < 0 || (dx1.hi == 0 && dx1.lo < 0) { return -1 }
        if dx1.hi > 0 || (dx1.hi == 0 && dx1.lo > 0) { return 1 }
        return 0
    }
}

/// Double-double numbers with exactly GEOS's (JTS's) operation sequences (Dekker splitting, no FMA).
struct DoubleDouble {
    var hi: Double
    var lo: Double

    init(_ x: Double) {
        hi = x
        lo = 0
    }

    private static let split = 134_217_729.0  // 2^27 + 1

    mutating func add(_ yhi: Double, _ ylo: Double) {
        let S = hi + yhi
        let T = lo + ylo
        var e = S - hi
        let f = T - lo
        var s = S - e
        var t = T - f
        s = (yhi - e) + (hi - s)
        t = (ylo - f) + (lo - t)
        e = s + T
        let H = S + e
        let h = e + (S - H)
        e = t + h
        let zhi = H + e
        let zlo = e + (H - zhi)
        hi = zhi
        lo = zlo
    }

    mutating func multiply(_ yhi: Double, _ ylo: Double) {
        var C = Self.split * hi
        var hx = C - hi
        var c = Self.split * yhi
        hx = C - hx
        let tx = hi - hx
        var hy = c - yhi
        C = hi * yhi
        hy = c - hy
        let ty = yhi - hy
        c = ((((hx * hy - C) + hx * ty) + tx * hy) + tx * ty) + (hi * ylo + lo * yhi)
        let zhi = C + c
        hx = C - zhi
        let zlo = c + hx
        hi = zhi
        lo = zlo
    }
}
