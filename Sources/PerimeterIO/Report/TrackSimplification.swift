/// Douglas–Peucker simplification of a track for drawing, in map units.
enum TrackSimplification {
    /// The finest tolerance, 1e-4 map units (about 4 m at the equator, less towards the poles):
    /// finer than a pixel at street level.
    static let finestTolerance = 1e-4

    /// The points kept, as x, y, t triples in `frame`'s page units to 1e-3 and times to the
    /// millisecond. The tolerance (in map units) is doubled until at most `limit` points are left;
    /// the first and last always stay.
    static func simplify(_ points: [(x: Double, y: Double, t: Double)], limit: Int,
                         frame: ReportMap.Frame = ReportMap.Frame()) -> [Double] {
        guard points.count > 2 else { return flatten(points, frame: frame) }
        var tolerance = finestTolerance
        var kept = keep(points, tolerance: tolerance)
        while kept.count > max(limit, 2) {
            tolerance *= 2
            kept = keep(points, tolerance: tolerance)
        }
        return flatten(kept.map { points[$0] }, frame: frame)
    }

    /// Indices of the points kept at `tolerance`, in order (an explicit stack: tracks can be long).
    static func keep(_ points: [(x: Double, y: Double, t: Double)], tolerance: Double) -> [Int] {
        var keep = [Bool](repeating: false, count: points.count)
        keep[0] = true
        keep[points.count - 1] = true
        var stack = [(0, points.count - 1)]
        while let (first, last) = stack.popLast() {
            guard last > first + 1 else { continue }
            let a = points[first], b = points[last]
            let dx = b.x - a.x, dy = b.y - a.y
            let length2 = dx * dx + dy * dy
            var farthest = -1, distance2 = tolerance * tolerance
            for i in (first + 1)..<last {
                let p = points[i]
                var d2: Double
                if length2 == 0 {
                    d2 = (p.x - a.x) * (p.x - a.x) + (p.y - a.y) * (p.y - a.y)
                } else {
                    let cross = dx * (p.y - a.y) - dy * (p.x - a.x)
                    d2 = cross * cross / length2
                }
                if d2 > distance2 { distance2 = d2; farthest = i }
            }
            if farthest >= 0 {
                keep[farthest] = true
                stack.append((first, farthest))
                stack.append((farthest, last))
            }
        }
        return keep.indices.filter { keep[$0] }
    }

    static func flatten(_ points: [(x: Double, y: Double, t: Double)], frame: ReportMap.Frame) -> [Double] {
        var flat: [Double] = []
        flat.reserveCapacity(points.count * 3)
        for p in points {
            flat.append(ReportMap.pageUnits(frame.x(p.x)))
            flat.append(ReportMap.pageUnits(frame.y(p.y)))
            flat.append((p.t * 1000).rounded() / 1000)
        }
        return flat
    }
}
