import CBuiltins
import Dispatch
import Foundation

/// Why a condition could not be added.
public enum ConditionCatalogError: Error, Sendable, Hashable, CustomStringConvertible {
    case duplicateIdentifier(String)
    /// The catalogue has numbered as many circles, or as many polygons, as it can (2²⁷ of each,
    /// removed ones included: a removed condition keeps its number).
    case tooManyConditions(limit: Int)
    /// A condition can start unknown, satisfied or unsatisfied; `unmonitored` and `dwelling` are
    /// events' states only.
    case notAStartingState(ConditionState)

    public var description: String {
        switch self {
        case .duplicateIdentifier(let id): "a condition with identifier \"\(id)\" is already monitored"
        case .tooManyConditions(let limit): "at most \(limit) circles and \(limit) polygons can be added to one engine (removed ones count)"
        case .notAStartingState(let state): "a condition cannot start \(state.rawValue): only unknown, satisfied or unsatisfied"
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
            let state: UInt32 = switch initialState {
            case .unknown: 0
            case .satisfied: 1
            case .unsatisfied: 2
            case .unmonitored, .dwelling: preconditionFailure("a condition cannot start \(initialState)")
            }
            bits = UInt32(slot) | (isPolygon ? Self.polygonBit : 0) | state << Self.stateShift | (hasSeamEdges ? Self.seamBit : 0)
        }

        @inline(__always) var isPolygon: Bool { bits & Self.polygonBit != 0 }
        @inline(__always) var slot: Int32 { Int32(bits & (Self.polygonBit - 1)) }
        @inline(__always) var isRemoved: Bool { bits & Self.removedBit != 0 }
        /// A polygon with an edge on the antimeridian or at a pole: a fix may cross to its other
        /// side there without coming near its boundary (`MeasureBounds.seamTermCap`).
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
    /// Shared geographic conditions whose starting state is not unsatisfied, ascending: the only ones
    /// a device's first fix must settle one by one, with its own private ones.
    private(set) var geographicStartingOtherwise: [Int32] = []
    /// Whether a private geographic condition (`ConditionAudiences`) starts otherwise than unsatisfied:
    /// those are not in `geographicStartingOtherwise`, but each in its devices' lists.
    private(set) var hasPrivateStartingOtherwise = false
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
    /// Which devices watch which conditions.
    private(set) var audiences = ConditionAudiences()
    /// The profile, when it does not monitor everything (a limit, or kinds it leaves out): its limits
    /// count per device, each device's `Watch` saying which of the conditions it watches it monitors.
    var perDeviceLimits: PlatformProfile? {
        didSet { changes += 1 }
    }
    /// Additions and removals, counted under limits (which they change).
    private var changes = 0
    /// Changes whenever what a device watches, or monitors, may have: devices compare it with their
    /// `Watch`'s.
    var watchEpoch: Int { audiences.epoch &+ changes }
    /// About how many bytes the polygons' evaluation data takes, counted as they are added: a polygon
    /// is its edges several times over (raster, lists).
    private(set) var polygonBytes = 0

    /// A condition as the catalogue keeps it: a polygon as its evaluation data (which gives the
    /// polygon back), the others as they are.
    enum CompiledCondition {
        case circle(CircularGeographicCondition)
        case polygon(PolygonShape)
        case beacon(BeaconIdentityCondition)
    }

    /// - Parameter polygonShape: the polygon's evaluation data when the caller built it already
    ///   (`PolygonShape(polygon.polygons)`; `addAll` builds many in parallel).
    mutating func add(_ condition: Condition, identifier: String, initialState: ConditionState,
                      addedAt: Timestamp?, audience: ConditionAudience = .everyone,
                      polygonShape: PolygonShape? = nil) throws(ConditionCatalogError) {
        let compiled: CompiledCondition = switch condition {
        case .circle(let circle): .circle(circle)
        case .polygon(let polygon): .polygon(polygonShape ?? PolygonShape(polygon.polygons))
        case .beacon(let beacon): .beacon(beacon)
        }
        try add(compiled, identifier: identifier, initialState: initialState, addedAt: addedAt, audience: audience)
    }

    /// Adds a condition compiled already (`add(_:identifier:…)` compiles it; an index image holds it so).
    mutating func add(_ condition: CompiledCondition, identifier: String, initialState: ConditionState,
                      addedAt: Timestamp?, audience: ConditionAudience) throws(ConditionCatalogError) {
        guard entry(identifier) == nil else { throw .duplicateIdentifier(identifier) }
        guard initialState.isConditionState else { throw .notAStartingState(initialState) }
        let entry: Entry
        switch condition {
        case .circle(let circle):
            guard circleShapes.count < Geographic.slotLimit else { throw .tooManyConditions(limit: Int(Geographic.slotLimit)) }
            let shape = CircleShape(circle)
            circleShapes.append(shape)
            circleCentres.append(circle.center)
            entry = addGeographic(identifier: identifier, isPolygon: false, slot: Int32(circleShapes.count - 1),
                                  initialState: initialState, audience: audience)
        case .polygon(let shape):
            guard polygonShapes.count < Geographic.slotLimit else { throw .tooManyConditions(limit: Int(Geographic.slotLimit)) }
            polygonShapes.append(shape)
            polygonBytes += shape.locator.edgeCount * 4 * MemoryLayout<Double>.size * 3
            entry = addGeographic(identifier: identifier, isPolygon: true, slot: Int32(polygonShapes.count - 1),
                                  initialState: initialState, audience: audience, hasSeamEdges: shape.locator.hasSeamEdges)
        case .beacon(let beacon):
            let i = Int32(beacons.count)
            beacons.append(Beacon(condition: beacon, initialState: initialState, addedAt: addedAt))
            beaconIdentifiers.append(identifier)
            beaconRemoved.append(false)
            audiences.appendBeacon(i, audience: audience)
            if initialState != .unsatisfied { beaconStartingOtherwise.append(i) }
            if beaconEpochs.last.map({ $0.addedAt != addedAt }) ?? true { beaconEpochs.append((i, addedAt)) }
            beaconMatcherIsStale = true
            entry = .beacon(i)
        }
        if perDeviceLimits != nil { changes += 1 }
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
    mutating func addAll(_ conditions: [(condition: Condition, identifier: String, initialState: ConditionState,
                                         audience: ConditionAudience)],
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
        let beaconCount = conditions.reduce(0) { if case .beacon = $1.condition { $0 + 1 } else { $0 } }
        reserve(circles: conditions.count - beaconCount - polygons.count, polygons: polygons.count, beacons: beaconCount)
        for (i, c) in conditions.enumerated() {
            try add(c.condition, identifier: c.identifier, initialState: c.initialState, addedAt: addedAt, audience: c.audience,
                    polygonShape: shapes[i])
        }
    }

    /// Makes room for this many more conditions at once: arrays grown by doubling would hold up to
    /// twice their size.
    mutating func reserve(circles: Int, polygons: Int, beacons beaconCount: Int) {
        let geographicCount = circles + polygons
        geographic.reserveCapacity(geographic.count + geographicCount)
        geographicIdentifiers.reserveCapacity(geographic.count + geographicCount)
        circleShapes.reserveCapacity(circleShapes.count + circles)
        circleCentres.reserveCapacity(circleCentres.count + circles)
        polygonShapes.reserveCapacity(polygonShapes.count + polygons)
        beacons.reserveCapacity(beacons.count + beaconCount)
        beaconIdentifiers.reserveCapacity(beacons.count + beaconCount)
        beaconRemoved.reserveCapacity(beaconRemoved.count + beaconCount)
        let geographicNames = geographicIdentifiers, beaconNames = beaconIdentifiers
        lookup.reserve(geographicCount + beaconCount) { Self.identifier(of: $0, geographicNames, beaconNames) }
    }

    private mutating func addGeographic(identifier: String, isPolygon: Bool, slot: Int32, initialState: ConditionState,
                                        audience: ConditionAudience, hasSeamEdges: Bool = false) -> Entry {
        let i = Int32(geographic.count)
        geographic.append(Geographic(isPolygon: isPolygon, slot: slot, initialState: initialState, hasSeamEdges: hasSeamEdges))
        geographicIdentifiers.append(identifier)
        index.insert(i)
        audiences.appendGeographic(i, audience: audience)
        // (A private condition's devices find it in their own lists: `Watch.privateGeographic`.)
        if initialState != .unsatisfied {
            if audience.isPrivate { hasPrivateStartingOtherwise = true } else { geographicStartingOtherwise.append(i) }
        }
        return .geographic(i)
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
            index.rebuild((0..<Int32(geographic.count)).compactMap { isLeftOutOfSharedIndex($0) ? nil : ($0, boundingBox($0)) })
        }
        let pending = geographic.count - Int(coverGrid.builtThrough)
        if (pending > 32 && pending * 256 > geographic.count) || (force && pending > 0) {
            coverGrid = CoverGrid(shapes: self, threads: threads)
            arrangeCirclesByPlace()
        }
    }

    /// Takes indexes laid out elsewhere for exactly these conditions (read from an index image), as
    /// `prepareIndex` would have laid them out: the circles are then stored in the grid's order.
    mutating func install(_ index: ConditionIndex, _ grid: CoverGrid) {
        self.index = index
        coverGrid = grid
        arrangeCirclesByPlace()
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
        // (Private circles go last, in addition order: a device's own lie together, as it reads them.)
        let privateKey = audiences.hasAudiences ? UInt32.max : nil
        var order = circleShapes.indices.map { s in
            let key = privateKey.flatMap { audiences.isPrivate(geographic: owner[s]) ? $0 : nil } ?? coverGrid.sortKey(circleCentres[s])
            return UInt64(key) << 32 | UInt64(s)
        }
        CellOrder.sort(&order)
        let shapes = circleShapes, centres = circleCentres
        circleShapes = order.map { shapes[Int($0 & 0xFFFF_FFFF)] }
        circleCentres = order.map { centres[Int($0 & 0xFFFF_FFFF)] }
        for (slot, key) in order.enumerated() {
            geographic[Int(owner[Int(key & 0xFFFF_FFFF)])].moveCircle(to: Int32(slot))
        }
    }

    @discardableResult
    mutating func remove(_ identifier: String) -> Bool {
        let geographicNames = geographicIdentifiers, beaconNames = beaconIdentifiers
        guard let entry = lookup.remove(identifier, identifierOf: { Self.identifier(of: $0, geographicNames, beaconNames) }) else {
            return false
        }
        if perDeviceLimits != nil { changes += 1 }
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
            ("audiences", audiences.heapBytes),
        ]
    }

    /// Calls `body` with every condition ever added, removed ones included, in addition order.
    func forEachAddition(_ body: (Entry) -> Void) {
        var g = 0, b = 0
        for run in additionRuns {
            if run > 0 {
                for i in g..<(g + Int(run)) { body(.geographic(Int32(i))) }
                g += Int(run)
            } else {
                for i in b..<(b - Int(run)) { body(.beacon(Int32(i))) }
                b -= Int(run)
            }
        }
    }

    /// Sets every device's groups anew (`MonitoringEngine.setGroups(_:)`).
    mutating func setGroups(_ members: [String: [String]]) { audiences.setGroups(members) }

    /// Whether geographic condition `i` is out of the shared index (the condition index and the cover
    /// grid): removed, or private (`ConditionAudiences`).
    @inline(__always)
    func isLeftOutOfSharedIndex(_ i: Int32) -> Bool {
        geographic[Int(i)].isRemoved || (audiences.hasAudiences && audiences.isPrivate(geographic: i))
    }
}

/// Polygon shapes one thread built for `ConditionCatalog.addAll`, with their positions.
///
/// `@unchecked Sendable`: each chunk is filled by one thread, and read only after every thread has
/// finished.
private final class PolygonShapeChunk: @unchecked Sendable {
    var shapes: [(Int, PolygonShape)] = []
}
