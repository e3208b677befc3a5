import Foundation

/// Why a condition could not be added.
public enum ConditionCatalogError: Error, Sendable, Hashable, CustomStringConvertible {
    case duplicateIdentifier(String)

    public var description: String {
        switch self {
        case .duplicateIdentifier(let id): "a condition with identifier \"\(id)\" is already monitored"
        }
    }
}

/// The conditions a monitor watches, compiled for evaluation and indexed.
///
/// Geographic and beacon conditions are numbered separately (dense indices into per-device state
/// arrays); both numberings follow the order of addition, which is the order events of one record
/// are written in.
struct ConditionCatalog: Sendable {
    struct Geographic {
        var identifier: String
        var condition: Condition
        var initialState: ConditionState
        var isRemoved = false
    }

    struct Beacon {
        var identifier: String
        var condition: BeaconIdentityCondition
        var initialState: ConditionState
        /// Stream time of the addition; `nil` for conditions there from the start.
        var addedAt: Timestamp?
        var isRemoved = false
    }

    enum Entry: Hashable {
        case geographic(Int32)
        case beacon(Int32)
    }

    private(set) var geographic: [Geographic] = []
    private(set) var beacons: [Beacon] = []
    private(set) var byIdentifier: [String: Entry] = [:]
    /// Identifiers of the monitored conditions, in addition order.
    private(set) var identifiers: [String] = []
    /// Beacon conditions by UUID, each list in addition order.
    private(set) var beaconsByUUID: [UUID: [Int32]] = [:]
    private(set) var index = ConditionIndex()

    // What evaluation reads, in flat arrays of plain values (no reference counting on the hot path).
    /// Per geographic condition: whether it is a polygon, and its slot in `circleShapes` or `polygonShapes`.
    private(set) var shapeSlots: [ShapeSlot] = []
    private(set) var circleShapes: [CircleShape] = []
    private(set) var polygonShapes: [PolygonShape] = []
    /// Geographic conditions whose starting state is not unsatisfied, ascending: the only ones a
    /// device's first fix must settle one by one.
    private(set) var geographicStartingOtherwise: [Int32] = []

    struct ShapeSlot {
        var isPolygon: Bool
        var slot: Int32
    }

    mutating func add(_ condition: Condition, identifier: String, initialState: ConditionState,
                      addedAt: Timestamp?) throws(ConditionCatalogError) {
        guard byIdentifier[identifier] == nil else { throw .duplicateIdentifier(identifier) }
        switch condition {
        case .circle(let circle):
            let shape = CircleShape(circle)
            shapeSlots.append(ShapeSlot(isPolygon: false, slot: Int32(circleShapes.count)))
            circleShapes.append(shape)
            addGeographic(condition, box: shape.boundingBox, identifier: identifier, initialState: initialState)
        case .polygon(let polygon):
            let shape = PolygonShape(polygon.polygons)
            shapeSlots.append(ShapeSlot(isPolygon: true, slot: Int32(polygonShapes.count)))
            polygonShapes.append(shape)
            addGeographic(condition, box: shape.boundingBox, identifier: identifier, initialState: initialState)
        case .beacon(let beacon):
            let i = Int32(beacons.count)
            beacons.append(Beacon(identifier: identifier, condition: beacon, initialState: initialState, addedAt: addedAt))
            beaconsByUUID[beacon.uuid, default: []].append(i)
            byIdentifier[identifier] = .beacon(i)
        }
        identifiers.append(identifier)
    }

    private mutating func addGeographic(_ condition: Condition, box: BoundingBox, identifier: String, initialState: ConditionState) {
        let i = Int32(geographic.count)
        geographic.append(Geographic(identifier: identifier, condition: condition, initialState: initialState))
        byIdentifier[identifier] = .geographic(i)
        index.insert(i, box: box)
        if initialState != .unsatisfied { geographicStartingOtherwise.append(i) }
    }

    /// Which side of geographic condition `i`'s boundary the frame's fix is on with its margin to
    /// spare, `nil` if neither.
    @inline(__always)
    func side(_ i: Int32, _ frame: inout FixFrame) -> Side? {
        let s = shapeSlots[Int(i)]
        if s.isPolygon { return polygonShapes[Int(s.slot)].side(of: frame.coordinate, margin: frame.margin) }
        return circleShapes[Int(s.slot)].side(&frame)
    }

    /// Lays the index out anew when enough conditions were added since it was built (they are checked
    /// one by one until then). The engine calls it before evaluating records.
    mutating func prepareIndex(force: Bool = false) {
        if index.needsRebuild || (force && index.hasUnindexed) { index.rebuild() }
    }

    @discardableResult
    mutating func remove(_ identifier: String) -> Bool {
        guard let entry = byIdentifier.removeValue(forKey: identifier) else { return false }
        identifiers.removeAll { $0 == identifier }
        switch entry {
        case .geographic(let i):
            geographic[Int(i)].isRemoved = true
            index.remove(i)
        case .beacon(let i):
            beacons[Int(i)].isRemoved = true
            let uuid = beacons[Int(i)].condition.uuid
            beaconsByUUID[uuid]?.removeAll { $0 == i }
            if beaconsByUUID[uuid]?.isEmpty == true { beaconsByUUID[uuid] = nil }
        }
        return true
    }

    func condition(_ identifier: String) -> Condition? {
        switch byIdentifier[identifier] {
        case .geographic(let i)?: geographic[Int(i)].condition
        case .beacon(let i)?: .beacon(beacons[Int(i)].condition)
        case nil: nil
        }
    }
}
