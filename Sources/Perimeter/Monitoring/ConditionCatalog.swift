import CBuiltins
import Dispatch
import Foundation

/// Why a condition could not be added.
public enum ConditionCatalogError: Error, Sendable, Hashable, CustomStringConvertible {
    case duplicateIdentifier(String)
    /// The catalogue has numbered as many circles, or as many polygons, as it can (2²⁷ of each,
    /// removed ones included: a removed condition keeps its number).
    case tooManyConditions(limit: Int)

    public var description: String {
        switch self {
        case .duplicateIdentifier(let id): "a condition with identifier \"\(id)\" is already monitored"
        case .tooManyConditions(let limit): "at most \(limit) circles and \(limit) polygons can be added to one engine (removed ones count)"
        }
    }
}

/// The conditions a monitor watches, compiled for evaluation and indexed.
///
/// Geographic and beacon conditions are numbered separately (dense indices into per-device state
/// arrays); both numberings follow the order of addition, which is the order events of one record
/// are written in.
struct ConditionCatalog: Sendable {
    // Identifiers are kept apart from the entries below, so that the entries are plain values: an
    // array's subscript copies a whole entry to read one field, and with a string in it that copy
    // was a retain and a release through a value witness, some 100 instructions per event.

    /// A geographic condition in four bytes: where its shape is (its slot in `circleShapes`, or in
    /// `polygonShapes`, whose locators also give back the polygons themselves), whether it was
    /// removed, and its starting state. Its identifier is in `geographicIdentifiers`. (Three arrays
    /// took six bytes a condition; evaluation reads the slot and the removed flag of a candidate
    /// together, from one load.)
    struct Geographic {
        private var bits: UInt32

        /// Slots below this fit: 134M circles and as many polygons (`add` refuses more).
        static let slotLimit: Int32 = 1 << 27
        private static let polygonBit: UInt32 = 1 << 27, removedBit: UInt32 = 1 << 28, stateShift: UInt32 = 29
        private static let seamBit: UInt32 = 1 << 31

        /// - Parameter hasSeamEdges: a polygon with an edge on the antimeridian or at a pole
        ///   (`PolygonLocator.hasSeamEdges`).
        init(isPolygon: Bool, slot: Int32, initialState: ConditionState, hasSeamEdges: Bool = false) {
            precondition(slot >= 0 && slot < Self.slotLimit, "too many geographic conditions")
            let state: UInt32 = switch initialState { case .unknown: 0; case .satisfied: 1; case .unsatisfied: 2 }
            bits = UInt32(slot) | (isPolygon ? Self.polygonBit : 0) | state << Self.stateShift | (hasSeamEdges ? Self.seamBit : 0)
        }

        @inline(__always) var isPolygon: Bool { bits & Self.polygonBit != 0 }
        @inline(__always) var slot: Int32 { Int32(bits & (Self.polygonBit - 1)) }
        @inline(__always) var isRemoved: Bool { bits & Self.removedBit != 0 }
        /// A polygon with an edge on the antimeridian or at a pole: a fix may cross to its other
        /// side there without coming near its boundary (`FixAnchor.seamTermCap`).
        @inline(__always) var hasSeamEdges: Bool { bits & Self.seamBit != 0 }
        var initialState: ConditionState {
            switch (bits >> Self.stateShift) & 3 { case 0: .unknown; case 1: .satisfied; default: .unsatisfied }
        }

        mutating func markRemoved() { bits |= Self.removedBit }

        /// Moves its circle to `slot` (flags and state kept).
        mutating func moveCircle(to slot: Int32) { bits = bits & ~(Self.polygonBit - 1) | UInt32(slot) }
    }

    /// A beacon condition; its identifier is in `beaconIdentifiers`.
    struct Beacon {
        var condition: BeaconIdentityCondition
        var initialState: ConditionState
        /// Stream time of the addition; `nil` for conditions there from the start.
        var addedAt: Timestamp?
    }

    enum Entry: Hashable {
        case geographic(Int32)
        case beacon(Int32)
    }

    private(set) var geographic: [Geographic] = []
    private(set) var beacons: [Beacon] = []
    private(set) var geographicIdentifiers: [String] = []
    private(set) var beaconIdentifiers: [String] = []
    private var lookup = IdentifierTable()
    /// The order every condition ever added came in, across the two kinds, as runs: k > 0 for the
    /// next k geographic conditions, k < 0 for the next −k beacon conditions. Each kind's numbers rise
    /// with addition, so the runs say it all: a catalogue added kind by kind takes a few entries, not
    /// 4 bytes a condition. Removed ones stay, flagged in `geographic` and `beaconRemoved`.
    private var additionRuns: [Int32] = []
    /// Finds the beacon conditions a sighting matches; rebuilt by `prepareIndex()` after changes.
    private(set) var beaconMatcher = BeaconMatcher()
    private var beaconMatcherIsStale = false
    private(set) var index = ConditionIndex()

    // What evaluation reads, in flat arrays of plain values (no reference counting on the hot path).
    private(set) var circleShapes: [CircleShape] = []
    /// Per circle slot, the exact centre, which evaluation reads only for readings and distances the
    /// chord cannot settle (`CircleShape`), and for boxes on the condition index's path.
    private(set) var circleCentres: [Coordinate] = []
    private(set) var polygonShapes: [PolygonShape] = []
    /// Geographic conditions whose starting state is not unsatisfied, ascending: the only ones a
    /// device's first fix must settle one by one.
    private(set) var geographicStartingOtherwise: [Int32] = []
    /// Runs of beacon conditions added at the same stream time: (first index, addition time).
    private(set) var beaconEpochs: [(start: Int32, addedAt: Timestamp?)] = []
    /// Beacon conditions whose starting state is not unsatisfied, ascending: the only ones a first
    /// exit timer must visit.
    private(set) var beaconStartingOtherwise: [Int32] = []
    /// Whether any geographic condition was removed: while none was, candidates skip the check
    /// above, a load from anywhere in an array as long as the conditions.
    private(set) var hasRemovedGeographic = false
    /// Whether each beacon condition was removed (read per queued exit).
    private(set) var beaconRemoved: [Bool] = []
    private(set) var coverGrid = CoverGrid()
    /// About how many bytes the polygons' evaluation data takes, counted as they are added: a polygon
    /// is its edges several times over (raster, lists).
    private(set) var polygonBytes = 0

    /// - Parameter polygonShape: the polygon's evaluation data when the caller built it already
    ///   (`PolygonShape(polygon.polygons)`; `addAll` builds many in parallel).
    mutating func add(_ condition: Condition, identifier: String, initialState: ConditionState,
                      addedAt: Timestamp?, polygonShape: PolygonShape? = nil) throws(ConditionCatalogError) {
        guard entry(identifier) == nil else { throw .duplicateIdentifier(identifier) }
        let entry: Entry
        switch condition {
        case .circle(let circle):
            guard circleShapes.count < Geographic.slotLimit else { throw .tooManyConditions(limit: Int(Geographic.slotLimit)) }
            let shape = CircleShape(circle)
            circleShapes.append(shape)
            circleCentres.append(circle.center)
            entry = addGeographic(identifier: identifier, isPolygon: false, slot: Int32(circleShapes.count - 1),
                                  initialState: initialState)
        case .polygon(let polygon):
            guard polygonShapes.count < Geographic.slotLimit else { throw .tooManyConditions(limit: Int(Geographic.slotLimit)) }
            let shape = polygonShape ?? PolygonShape(polygon.polygons)
            polygonShapes.append(shape)
            polygonBytes += shape.locator.edgeCount * 4 * MemoryLayout<Double>.size * 3
            entry = addGeographic(identifier: identifier, isPolygon: true, slot: Int32(polygonShapes.count - 1),
                                  initialState: initialState, hasSeamEdges: shape.locator.hasSeamEdges)
        case .beacon(let beacon):
            let i = Int32(beacons.count)
            beacons.append(Beacon(condition: beacon, initialState: initialState, addedAt: addedAt))
            beaconIdentifiers.append(identifier)
            beaconRemoved.append(false)
            if initialState != .unsatisfied { beaconStartingOtherwise.append(i) }
            if beaconEpochs.last.map({ $0.addedAt != addedAt }) ?? true { beaconEpochs.append((i, addedAt)) }
            beaconMatcherIsStale = true
            entry = .beacon(i)
        }
        let step: Int32 = if case .geographic = entry { 1 } else { -1 }
        if let last = additionRuns.last, (last > 0) == (step > 0), last != .max, last != .min {
            additionRuns[additionRuns.count - 1] += step
        } else {
            additionRuns.append(step)
        }
        let geographic = geographicIdentifiers, beacons = beaconIdentifiers
        lookup.insert(entry, identifier: identifier) { Self.identifier(of: $0, geographic, beacons) }
    }

    /// The condition an identifier names, if it is monitored.
    func entry(_ identifier: String) -> Entry? {
        lookup.find(identifier) { Self.identifier(of: $0, geographicIdentifiers, beaconIdentifiers) }
    }

    private static func identifier(of entry: Entry, _ geographic: [String], _ beacons: [String]) -> String {
        switch entry {
        case .geographic(let i): geographic[Int(i)]
        case .beacon(let i): beacons[Int(i)]
        }
    }

    /// Adds `conditions` in order, as one `add` after another would (stopping at the first duplicate
    /// identifier, with those before it added), building the polygons' evaluation data — the costly
    /// part — on `threads` threads first.
    mutating func addAll(_ conditions: [(condition: Condition, identifier: String, initialState: ConditionState)],
                         addedAt: Timestamp?, threads: Int) throws(ConditionCatalogError) {
        let polygons = conditions.indices.filter { if case .polygon = conditions[$0].condition { true } else { false } }
        var shapes = [PolygonShape?](repeating: nil, count: conditions.count)
        if threads > 1 && polygons.count > 1 {
            let chunks = min(polygons.count, threads * 4)
            let built = (0..<chunks).map { _ in PolygonShapeChunk() }
            DispatchQueue.concurrentPerform(iterations: chunks) { k in
                for i in polygons[polygons.count * k / chunks ..< polygons.count * (k + 1) / chunks] {
                    if case .polygon(let polygon) = conditions[i].condition { built[k].shapes.append((i, PolygonShape(polygon.polygons))) }
                }
            }
            for chunk in built { for (i, shape) in chunk.shapes { shapes[i] = shape } }
        }
        // Room for all of them at once: arrays grown by doubling would hold up to twice their size.
        let beaconCount = conditions.reduce(0) { if case .beacon = $1.condition { $0 + 1 } else { $0 } }
        let geographicCount = conditions.count - beaconCount, circles = geographicCount - polygons.count
        geographic.reserveCapacity(geographic.count + geographicCount)
        geographicIdentifiers.reserveCapacity(geographic.count + geographicCount)
        circleShapes.reserveCapacity(circleShapes.count + circles)
        circleCentres.reserveCapacity(circleCentres.count + circles)
        polygonShapes.reserveCapacity(polygonShapes.count + polygons.count)
        beacons.reserveCapacity(beacons.count + beaconCount)
        beaconIdentifiers.reserveCapacity(beacons.count + beaconCount)
        beaconRemoved.reserveCapacity(beaconRemoved.count + beaconCount)
        let geographicNames = geographicIdentifiers, beaconNames = beaconIdentifiers
        lookup.reserve(conditions.count) { Self.identifier(of: $0, geographicNames, beaconNames) }
        for (i, c) in conditions.enumerated() {
            try add(c.condition, identifier: c.identifier, initialState: c.initialState, addedAt: addedAt, polygonShape: shapes[i])
        }
    }

    private mutating func addGeographic(identifier: String, isPolygon: Bool, slot: Int32, initialState: ConditionState,
                                        hasSeamEdges: Bool = false) -> Entry {
        let i = Int32(geographic.count)
        geographic.append(Geographic(isPolygon: isPolygon, slot: slot, initialState: initialState, hasSeamEdges: hasSeamEdges))
        geographicIdentifiers.append(identifier)
        index.insert(i)
        if initialState != .unsatisfied { geographicStartingOtherwise.append(i) }
        return .geographic(i)
    }

    /// The beacon conditions a sighted identity matches, ascending (addition order), into `result`.
    @inline(__always)
    func matchingBeacons(_ identity: BeaconIdentity, into result: inout [Int32]) {
        beaconMatcher.matches(identity, into: &result)
    }

    func beaconIdentifier(_ i: Int32) -> String { beaconIdentifiers[Int(i)] }
    func beaconInitialState(_ i: Int32) -> ConditionState { beacons[Int(i)].initialState }
    func geographicIdentifier(_ i: Int32) -> String { geographicIdentifiers[Int(i)] }
    func geographicInitialState(_ i: Int32) -> ConditionState { geographic[Int(i)].initialState }

    func boundingBox(_ i: Int32) -> BoundingBox {
        let s = geographic[Int(i)]
        return s.isPolygon ? polygonShapes[Int(s.slot)].boundingBox
            : Geodesy.boundingBox(around: circleCentres[Int(s.slot)], metres: circleShapes[Int(s.slot)].radius)
    }

    /// The circle in slot `slot` of `circleShapes`, as it was added.
    func circle(inSlot slot: Int32) -> CircularGeographicCondition {
        CircularGeographicCondition(checkedCenter: circleCentres[Int(slot)], radius: circleShapes[Int(slot)].radius)
    }

    /// What the frame's fix says about the circle in `slot`: from the chord, else the plain haversine.
    @inline(__always)
    private func circleReading(_ slot: Int32, _ frame: inout FixFrame) -> Reading {
        circleShapes[Int(slot)].reading(&frame) ?? CircleShape.exactReading(frame, circle(inSlot: slot))
    }

    /// Whether geographic condition `i`'s box meets `query` (`ConditionIndex.meets`): a polygon's box
    /// as its shape keeps it, a circle's as `ConditionIndex.marginBox` bounds it around the centre
    /// (no trigonometry; never smaller than the circle), so that no box need be stored per condition.
    @inline(__always)
    func boxMeets(_ i: Int32, _ query: BoundingBox) -> Bool {
        let s = geographic[Int(i)]
        if s.isPolygon { return ConditionIndex.meets(polygonShapes[Int(s.slot)].boundingBox, query) }
        return ConditionIndex.meets(ConditionIndex.marginBox(around: circleCentres[Int(s.slot)], metres: circleShapes[Int(s.slot)].radius),
                                    query)
    }

    /// Whether geographic condition `i` is still monitored and its box meets `query`.
    @inline(__always)
    private func isPresent(_ i: Int32, meeting query: BoundingBox) -> Bool {
        !geographic[Int(i)].isRemoved && boxMeets(i, query)
    }

    /// Which side of geographic condition `i`'s boundary a cover-grid cell's centre is on, and a lower
    /// bound on its distance to the boundary (as `reading(_:_:)` measures it); `crossed` with 0 when
    /// that is unknown. Distances beyond `within` need not be exact (they are at least `within`).
    /// - Parameters:
    ///   - centre: the cell's centre, and the same as a unit vector.
    func centreRelation(_ i: Int32, centre: Coordinate, unit: (x: Double, y: Double, z: Double),
                        within: Double) -> (CoverGrid.Relation, Double) {
        let s = geographic[Int(i)]
        if !s.isPolygon {
            let shape = circleShapes[Int(s.slot)], r = shape.radius
            let dc = shape.centreDistance(to: centre, unit: unit.x, unit.y, unit.z, centre: circleCentres[Int(s.slot)])
            // (Within the distance's error of the radius, the side is not known.)
            if dc + CircleShape.distanceError < r { return (.inside, r - dc - CircleShape.distanceError) }
            if dc - CircleShape.distanceError > r { return (.outside, dc - r - CircleShape.distanceError) }
            return (.crossed, 0)
        }
        guard abs(centre.latitude) < 80 else { return (.crossed, 0) }
        let shape = polygonShapes[Int(s.slot)]
        let radius = within + 10
        let nearest = shape.locator.nearestBoundaryDistance(from: centre, within: Geodesy.boundingBox(around: centre, metres: radius / 0.98))
        // The frame's measure is within 2 % of the true distance at these sizes and latitudes, and
        // is never below it: 0.98 × it bounds the measure from below.
        return Self.centreRelation(shape, centre: centre, clearance: nearest.isFinite ? 0.98 * nearest : radius)
    }

    /// `centreRelation(_:centre:unit:within:)` for polygon `i` when `rowFrameShape(_:)` gave its
    /// shape and `edges` holds its edges in the frame of the centre's latitude: the same nearest
    /// boundary point, found without setting the frame up again for each cell of the row.
    func centreRelation(_ shape: PolygonShape, centre: Coordinate, edges: RowFrameEdges) -> (CoverGrid.Relation, Double) {
        guard abs(centre.latitude) < 80, let point = edges.nearestPoint(toLongitude: centre.longitude) else { return (.crossed, 0) }
        return Self.centreRelation(shape, centre: centre, clearance: 0.98 * Geodesy.distance(centre, point))
    }

    /// A polygon cell centre's side given how far it stays from the boundary.
    private static func centreRelation(_ shape: PolygonShape, centre: Coordinate, clearance: Double) -> (CoverGrid.Relation, Double) {
        guard clearance > 0 else { return (.crossed, 0) }
        return (shape.covers(centre) ? .inside : .outside, clearance)
    }

    /// Geographic condition `i`'s shape when it is a polygon whose cover-grid cells can be classified
    /// row by row (`relation(_:centre:edges:halfDiagonal:)`): few enough edges that the nearest is
    /// found among all of them, and clear of the antimeridian, which that frame does not wrap.
    func rowFrameShape(_ i: Int32) -> PolygonShape? {
        let s = geographic[Int(i)]
        guard s.isPolygon else { return nil }
        let shape = polygonShapes[Int(s.slot)]
        guard shape.locator.edgeCount <= PolygonLocator.fewEdges,
              shape.boundingBox.minLongitude > -179, shape.boundingBox.maxLongitude < 179 else { return nil }
        return shape
    }

    /// Asks for the shapes of `conditions` that a reading at `c` will read first, for one fix at a
    /// time, whose shapes are seldom in cache (a device's next fix comes after thousands of other
    /// devices'): first each circle's record and each polygon's locator, then each polygon's raster
    /// data at `c`, so that the waits of all of them overlap instead of following one another. (A
    /// batch reads each device's fixes together, its shapes mostly still in cache: it skips this.)
    @inline(__always)
    func askForShapes<Conditions: Sequence<Int32>>(of conditions: Conditions, at c: Coordinate) {
        for i in conditions {
            let s = geographic[Int(i)]
            if s.isPolygon {
                let object = Unmanaged.passUnretained(polygonShapes[Int(s.slot)].locator).toOpaque()
                perimeter_prefetch(object)
                perimeter_prefetch(object + 64)
                perimeter_prefetch(object + 128)
            } else {
                circleShapes.withUnsafeBufferPointer { perimeter_prefetch($0.baseAddress! + Int(s.slot)) }
            }
        }
        for i in conditions {
            let s = geographic[Int(i)]
            if s.isPolygon { polygonShapes[Int(s.slot)].locator.prefetch(c.longitude, c.latitude) }
        }
    }

    /// What the frame's fix says about geographic condition `i` (`Reading`).
    @inline(__always)
    func reading(_ i: Int32, _ frame: inout FixFrame) -> Reading {
        let s = geographic[Int(i)]
        if s.isPolygon { return polygonShapes[Int(s.slot)].reading(&frame) }
        return circleReading(s.slot, &frame)
    }

    /// `reading(_:_:)`, from the cover grid's entry for `i` in the fix's cell (`cell`, from
    /// `coverGrid.entries(at:)`) where that decides it (perhaps the side alone: `Reading.isUnmeasured`),
    /// with the clearance it gives, as `collectReadings` would.
    @inline(__always)
    func reading(_ i: Int32, _ frame: inout FixFrame, cell: (range: Range<Int>, offset: Double),
                 clearance: inout Double) -> Reading {
        guard frame.margin <= coverGrid.reach, let e = coverGrid.entry(of: i, in: cell.range) else {
            clearance = 0
            return reading(i, &frame)
        }
        return reading(e, &frame, need: coverGrid.need(cell.offset + frame.margin), sideNeed: coverGrid.need(cell.offset),
                       offset: cell.offset, clearance: &clearance)
    }

    /// What the frame's fix says about cover-grid entry `e`'s condition: the entry's side where it
    /// decides `need`; the side alone (`Reading.insideUnmeasured`, `.outsideUnmeasured`) where it
    /// decides only `sideNeed` (the fix's offset from the cell's centre, without its margin); with
    /// `clearance` a lower bound on the great-circle distance from the fix to the boundary (λ × the
    /// entry's clearance at the cell's centre, less the fix's `offset` from the centre;
    /// λ = `FixAnchor.marginShare` covers the grid's frame distance against the great circle).
    /// Else the condition's reading, with `clearance` 0.
    @inline(__always)
    private func reading(_ e: CoverGrid.Entry, _ frame: inout FixFrame, need: CoverGrid.Need, sideNeed: CoverGrid.Need,
                         offset: Double, clearance: inout Double) -> Reading {
        guard e.decides(sideNeed) else {
            clearance = 0
            return reading(e.condition, &frame)
        }
        clearance = max(0, FixAnchor.marginShare * coverGrid.clearance(e) - offset)
        if e.decides(need) { return e.isInside ? .inside : .outside }
        return e.isInside ? .insideUnmeasured : .outsideUnmeasured
    }

    /// The great-circle distance from the frame's fix to geographic condition `i`'s boundary, to within
    /// `cheapDistanceError`, when it is cheap to know: a circle's; `nil` for a polygon, whose measure
    /// costs more than the anchor gains by it.
    @inline(__always)
    func cheapDistanceToBoundary(_ i: Int32, _ frame: inout FixFrame) -> Double? {
        let s = geographic[Int(i)]
        guard !s.isPolygon else { return nil }
        return circleShapes[Int(s.slot)].distanceToBoundary(&frame)
            ?? abs(circle(inSlot: s.slot).signedDistance(to: frame.coordinate))
    }

    /// The most an anchor term of geographic condition `i` may be for a fix at `c`: unbounded, but
    /// for a polygon with seam edges (`FixAnchor.seamTermCap`).
    @inline(__always)
    func anchorTermCap(_ i: Int32, at c: Coordinate) -> Double {
        geographic[Int(i)].hasSeamEdges ? FixAnchor.seamTermCap(c) : .infinity
    }

    /// How far `cheapDistanceToBoundary(_:_:)` may be from the true distance, in metres.
    static let cheapDistanceError = CircleShape.distanceError

    /// A lower bound on the distance of every geographic condition that `collectReadings` leaves out for
    /// a fix with margin `m`: its margin, or the cover grid's reach when the grid alone answered.
    func nonCandidateDistance(margin m: Double) -> Double {
        let gridAnswers = !coverGrid.isEmpty && m <= coverGrid.reach && coverGrid.excluded.isEmpty
            && coverGrid.builtThrough == Int32(geographic.count)
        return FixAnchor.marginShare * (gridAnswers ? coverGrid.reach : m)
    }

    /// Lays the index out anew when enough conditions were added since it was built (they are checked
    /// one by one until then). The engine calls it before evaluating records.
    /// - Parameter threads: threads that may build the cover grid.
    mutating func prepareIndex(force: Bool = false, threads: Int = 1) {
        if beaconMatcherIsStale {
            beaconMatcher = BeaconMatcher(beacons, removed: beaconRemoved)
            beaconMatcherIsStale = false
        }
        if index.needsRebuild || (force && index.hasUnindexed) {
            index.rebuild((0..<Int32(geographic.count)).compactMap { geographic[Int($0)].isRemoved ? nil : ($0, boundingBox($0)) })
        }
        let pending = geographic.count - Int(coverGrid.builtThrough)
        if (pending > 32 && pending * 256 > geographic.count) || (force && pending > 0) {
            coverGrid = CoverGrid(shapes: self, threads: threads)
            arrangeCirclesByPlace()
        }
    }

    /// Stores the circles' shapes in the cover grid's cell order (by centre), so that the circles of
    /// one place lie together in memory: fixes are evaluated place by place, and a fix's candidates
    /// are then read from a few cache lines rather than from anywhere in the array. With a million
    /// circles scattered in addition order, nearly every reading missed the cache. Only the slots
    /// move; condition numbers, and so every answer and event order, stay as they are.
    private mutating func arrangeCirclesByPlace() {
        guard coverGrid.hasCells, circleShapes.count > 1 else { return }
        var owner = [Int32](repeating: 0, count: circleShapes.count)
        for i in geographic.indices where !geographic[i].isPolygon { owner[Int(geographic[i].slot)] = Int32(i) }
        var order = circleShapes.indices.map { s in
            UInt64(coverGrid.sortKey(circleCentres[s])) << 32 | UInt64(s)
        }
        CellOrder.sort(&order)
        let shapes = circleShapes, centres = circleCentres
        circleShapes = order.map { shapes[Int($0 & 0xFFFF_FFFF)] }
        circleCentres = order.map { centres[Int($0 & 0xFFFF_FFFF)] }
        for (slot, key) in order.enumerated() {
            geographic[Int(owner[Int(key & 0xFFFF_FFFF)])].moveCircle(to: Int32(slot))
        }
    }

    /// Every geographic condition within `frame`'s margin of its fix, each with what the fix says about
    /// it, into `candidates` and `readings`. Conditions left out are confidently outside. A reading
    /// may be unmeasured (`Reading.isUnmeasured`): the caller measures it where the distance matters.
    ///
    /// `clearances` gets, per candidate, a lower bound on the great-circle distance from the fix to
    /// its boundary that the cover grid knew without measuring, 0 where it knew none
    /// (`reading(_:_:need:sideNeed:offset:clearance:)`).
    @inline(__always)
    func collectReadings(_ frame: inout FixFrame, stamps: inout [UInt32], stamp: UInt32, asksAhead: Bool,
                         candidates: inout [Int32], readings: inout [Reading], clearances: inout [Double]) {
        let m = frame.margin
        if !coverGrid.isEmpty && m <= coverGrid.reach {
            let (range, offset) = coverGrid.entries(at: frame.coordinate)
            let need = coverGrid.need(offset + m), sideNeed = coverGrid.need(offset)
            if asksAhead {
                askForShapes(of: range.lazy.map { self.coverGrid.entry($0) }.filter { !$0.decides(sideNeed) }.map(\.condition),
                             at: frame.coordinate)
            }
            for k in range {
                let e = coverGrid.entry(k)
                guard !hasRemovedGeographic || !geographic[Int(e.condition)].isRemoved else { continue }
                var clearance = 0.0
                let reading = self.reading(e, &frame, need: need, sideNeed: sideNeed, offset: offset, clearance: &clearance)
                candidates.append(e.condition)
                readings.append(reading)
                clearances.append(clearance)
            }
            let built = coverGrid.builtThrough, count = Int32(geographic.count)
            if coverGrid.excluded.isEmpty && built == count { return }
            // Those the grid does not list: too large for it, or added since it was built.
            let query = ConditionIndex.marginBox(around: frame.coordinate, metres: m)
            func consider(_ i: Int32) {
                guard isPresent(i, meeting: query) else { return }
                candidates.append(i)
                readings.append(reading(i, &frame))
                clearances.append(0)
            }
            for k in coverGrid.excluded.indices { consider(coverGrid.excluded[k]) }
            for i in built..<max(built, count) { consider(i) }
            return
        }
        let first = candidates.count
        index.collect(around: frame.coordinate, margin: m, stamps: &stamps, stamp: stamp, into: &candidates,
                      meets: isPresent(_:meeting:))
        for k in first..<candidates.count {
            readings.append(reading(candidates[k], &frame))
            clearances.append(0)
        }
    }

    /// The geographic conditions covering `c` (boundary included, no margin), into `result`: the
    /// stateless question, answered without collecting sides — an entry of the point's cover-grid cell
    /// whose centre is farther from the boundary than the point is from the centre gives the centre's
    /// side without a test (inside: covered; outside: skipped); only the rest are tested.
    @inline(__always)
    func appendCovering(_ c: Coordinate, stamps: inout [UInt32], stamp: UInt32, candidates: inout [Int32],
                        into result: inout [Int32]) {
        var frame = FixFrame(c, margin: 0)
        if !coverGrid.isEmpty {
            let (range, offset) = coverGrid.entries(at: c)
            let need = coverGrid.need(offset)
            for k in range {
                let e = coverGrid.entry(k)
                let decided = e.decides(need)
                guard !(decided && !e.isInside) && (!hasRemovedGeographic || !geographic[Int(e.condition)].isRemoved) else { continue }
                if decided || covers(e.condition, &frame) { result.append(e.condition) }
            }
            let built = coverGrid.builtThrough, count = Int32(geographic.count)
            for k in coverGrid.excluded.indices where covers(coverGrid.excluded[k], &frame) { result.append(coverGrid.excluded[k]) }
            if built < count {
                for i in built..<count where covers(i, &frame) { result.append(i) }
            }
            return
        }
        candidates.removeAll(keepingCapacity: true)
        index.collect(around: c, margin: 0, stamps: &stamps, stamp: stamp, into: &candidates,
                      meets: isPresent(_:meeting:))
        for i in candidates where covers(i, &frame) { result.append(i) }
    }

    /// The live geographic conditions with their shapes when they are at most a few polygons and
    /// nothing else (a country, or a city's districts), all in the cover grid or all too large for
    /// it; `nil` otherwise. A batch then tests each point against each polygon directly, in
    /// ascending order as the grid would list them.
    func fewPolygons() -> (indices: [Int32], shapes: [PolygonShape])? {
        guard geographic.count <= Self.fewPolygonCount, !coverGrid.isEmpty, coverGrid.builtThrough == Int32(geographic.count),
              coverGrid.holdsNoEntries || coverGrid.excluded.isEmpty else { return nil }
        var indices: [Int32] = [], shapes: [PolygonShape] = []
        for (i, s) in geographic.enumerated() where !s.isRemoved {
            guard s.isPolygon else { return nil }
            indices.append(Int32(i))
            shapes.append(polygonShapes[Int(s.slot)])
        }
        return (indices, shapes)
    }

    /// At most this many polygons are tested directly by a batch (`fewPolygons`).
    static let fewPolygonCount = 8

    /// Whether geographic condition `i` covers the frame's fix (boundary included).
    /// (A polygon checks its own box first; a circle is checked by box before its exact test.)
    @inline(__always)
    private func covers(_ i: Int32, _ frame: inout FixFrame) -> Bool {
        let s = geographic[Int(i)]
        guard !s.isRemoved else { return false }
        if s.isPolygon { return polygonShapes[Int(s.slot)].covers(frame.coordinate) }
        guard ConditionIndex.marginBox(around: circleCentres[Int(s.slot)], metres: circleShapes[Int(s.slot)].radius,
                                       holds: frame.coordinate) else { return false }
        return circleReading(s.slot, &frame) == .inside
    }

    /// The heap bytes the catalogue holds, by part (see `MonitoringEngine.conditionStorageBytes`).
    var heapBytes: [(part: String, bytes: Int)] {
        [
            ("identifiers", HeapBytes.of(additionRuns) + HeapBytes.of(geographicIdentifiers) + HeapBytes.of(beaconIdentifiers)
                + (geographicIdentifiers + beaconIdentifiers).reduce(0) { $0 + HeapBytes.of($1) }),
            ("identifier lookup", lookup.heapBytes),
            ("geographic conditions", HeapBytes.of(geographic) + HeapBytes.of(geographicStartingOtherwise)),
            ("circle shapes", HeapBytes.of(circleShapes) + HeapBytes.of(circleCentres)),
            ("polygon shapes", HeapBytes.of(polygonShapes) + polygonShapes.reduce(0) { $0 + $1.locator.heapBytes }),
            ("condition index", index.heapBytes),
            ("cover grid", coverGrid.heapBytes),
            ("beacon conditions", HeapBytes.of(beacons) + HeapBytes.of(beaconRemoved) + HeapBytes.of(beaconEpochs)
                + HeapBytes.of(beaconStartingOtherwise)),
            ("beacon matcher", beaconMatcher.heapBytes),
        ]
    }

    /// Identifiers of the monitored conditions, in addition order.
    var identifiers: [String] {
        var result: [String] = [], g = 0, b = 0
        for run in additionRuns {
            if run > 0 {
                for i in g..<(g + Int(run)) where !geographic[i].isRemoved { result.append(geographicIdentifiers[i]) }
                g += Int(run)
            } else {
                for i in b..<(b - Int(run)) where !beaconRemoved[i] { result.append(beaconIdentifiers[i]) }
                b -= Int(run)
            }
        }
        return result
    }

    @discardableResult
    mutating func remove(_ identifier: String) -> Bool {
        let geographicNames = geographicIdentifiers, beaconNames = beaconIdentifiers
        guard let entry = lookup.remove(identifier, identifierOf: { Self.identifier(of: $0, geographicNames, beaconNames) }) else {
            return false
        }
        switch entry {
        case .geographic(let i):
            geographic[Int(i)].markRemoved()
            hasRemovedGeographic = true
        case .beacon(let i):
            beaconRemoved[Int(i)] = true
            beaconMatcherIsStale = true
        }
        return true
    }

    func condition(_ identifier: String) -> Condition? {
        switch entry(identifier) {
        case .geographic(let i)?:
            let s = geographic[Int(i)]
            return s.isPolygon ? .polygon(PolygonalGeographicCondition(checked: polygonShapes[Int(s.slot)].locator.polygons))
                : .circle(circle(inSlot: s.slot))
        case .beacon(let i)?: return .beacon(beacons[Int(i)].condition)
        case nil: return nil
        }
    }
}

/// Polygon shapes one thread built for `ConditionCatalog.addAll`, with their positions.
///
/// `@unchecked Sendable`: each chunk is filled by one thread, and read only after every thread has
/// finished.
private final class PolygonShapeChunk: @unchecked Sendable {
    var shapes: [(Int, PolygonShape)] = []
}
