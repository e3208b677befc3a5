/// A uniform latitude/longitude grid over geographic conditions' bounding boxes.
///
/// A query returns every condition whose box meets the query box; conditions it leaves out are
/// certainly farther from the fix than the query's margin, so the engine treats them as confidently
/// outside without testing them. Conditions that would span too many cells sit in a short list that
/// every query checks by box.
struct ConditionIndex {
    /// Cell edge in degrees.
    let cellSize: Double
    private var cells: [Int64: [Int32]] = [:]
    private var large: [Int32] = []
    /// Each condition's box, by index; longitudes may run past ±180 for circles at the antimeridian.
    private(set) var boxes: [BoundingBox?] = []

    static let maximumCellsPerCondition = 64
    /// A query box spanning more cells than this scans every condition instead.
    static let maximumCellsPerQuery = 4096

    init(cellSize: Double) {
        self.cellSize = cellSize
    }

    /// A cell size suited to a set of boxes: about the median box's larger side, within 0.001°…1°.
    static func cellSize<S: Sequence>(for boxes: S) -> Double where S.Element == BoundingBox {
        var sides = boxes.map { max($0.maxLatitude - $0.minLatitude, $0.maxLongitude - $0.minLongitude) }
        guard !sides.isEmpty else { return 0.05 }
        sides.sort()
        return min(1, max(0.001, sides[sides.count / 2] * 2))
    }

    var count: Int { boxes.count }

    private func row(_ latitude: Double) -> Int64 { Int64(((latitude + 90) / cellSize).rounded(.down)) }
    private func column(_ longitude: Double) -> Int64 { Int64(((longitude + 180) / cellSize).rounded(.down)) }
    private func key(_ row: Int64, _ column: Int64) -> Int64 { row << 32 | column }

    private func cellCount(_ box: BoundingBox) -> Int64 {
        (row(box.maxLatitude) - row(box.minLatitude) + 1) * (column(box.maxLongitude) - column(box.minLongitude) + 1)
    }

    mutating func insert(_ index: Int32, box: BoundingBox) {
        precondition(Int(index) == boxes.count, "conditions are indexed in order")
        boxes.append(box)
        var total: Int64 = 0
        box.forEachPieceWithinLongitudeRange { total += cellCount($0) }
        if total > Self.maximumCellsPerCondition {
            large.append(index)
            return
        }
        box.forEachPieceWithinLongitudeRange { piece in
            forEachCell(of: piece) { cells[$0, default: []].append(index) }
        }
    }

    mutating func remove(_ index: Int32) {
        guard let box = boxes[Int(index)] else { return }
        boxes[Int(index)] = nil
        if let i = large.firstIndex(of: index) {
            large.remove(at: i)
            return
        }
        box.forEachPieceWithinLongitudeRange { piece in
            forEachCell(of: piece) { key in
                cells[key]?.removeAll { $0 == index }
                if cells[key]?.isEmpty == true { cells[key] = nil }
            }
        }
    }

    private func forEachCell(of piece: BoundingBox, _ body: (Int64) -> Void) {
        let r0 = row(piece.minLatitude), r1 = row(piece.maxLatitude)
        let c0 = column(piece.minLongitude), c1 = column(piece.maxLongitude)
        var r = r0
        while r <= r1 {
            var c = c0
            while c <= c1 {
                body(key(r, c))
                c += 1
            }
            r += 1
        }
    }

    /// Appends to `result` every condition whose box comes within `margin` metres of `c` (each once).
    @inline(__always)
    func collect(around c: Coordinate, margin: Double, stamps: inout [UInt32], stamp: UInt32, into result: inout [Int32]) {
        collect(in: Geodesy.boundingBox(around: c, metres: margin), stamps: &stamps, stamp: stamp, into: &result)
    }

    /// Appends to `result` every condition whose box meets `query` (each once).
    ///
    /// `stamps` (one per condition) and `stamp` de-duplicate without a set: a condition is taken when
    /// its stamp differs from this query's, and then marked.
    func collect(in query: BoundingBox, stamps: inout [UInt32], stamp: UInt32, into result: inout [Int32]) {
        if stamps.count < boxes.count { stamps.append(contentsOf: repeatElement(0, count: boxes.count - stamps.count)) }
        var total: Int64 = 0
        query.forEachPieceWithinLongitudeRange { total += cellCount($0) }
        if total > Self.maximumCellsPerQuery {
            for i in boxes.indices { consider(Int32(i), query, &stamps, stamp, &result) }
            return
        }
        for i in large { consider(i, query, &stamps, stamp, &result) }
        query.forEachPieceWithinLongitudeRange { piece in
            forEachCell(of: piece) { key in
                guard let list = cells[key] else { return }
                for i in list { consider(i, query, &stamps, stamp, &result) }
            }
        }
    }

    @inline(__always)
    private func consider(_ i: Int32, _ query: BoundingBox, _ stamps: inout [UInt32], _ stamp: UInt32,
                          _ result: inout [Int32]) {
        guard stamps[Int(i)] != stamp, let box = boxes[Int(i)] else { return }
        stamps[Int(i)] = stamp
        if Self.meets(box, query) { result.append(i) }
    }

    /// Whether two boxes meet, either directly or one turn of longitude round.
    static func meets(_ a: BoundingBox, _ b: BoundingBox) -> Bool {
        if a.intersects(b) { return true }
        var shifted = a
        shifted.minLongitude += 360
        shifted.maxLongitude += 360
        if shifted.intersects(b) { return true }
        shifted.minLongitude -= 720
        shifted.maxLongitude -= 720
        return shifted.intersects(b)
    }
}
