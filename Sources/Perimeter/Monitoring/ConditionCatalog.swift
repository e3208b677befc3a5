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
        var shape: GeographicShape
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

    mutating func add(_ condition: Condition, identifier: String, initialState: ConditionState,
                      addedAt: Timestamp?) throws(ConditionCatalogError) {
        guard byIdentifier[identifier] == nil else { throw .duplicateIdentifier(identifier) }
        switch condition {
        case .circle(let circle):
            addGeographic(.circle(CircleShape(circle)), identifier: identifier, initialState: initialState)
        case .polygon(let polygon):
            addGeographic(.polygon(PolygonShape(polygon.polygons), polygon),
                          identifier: identifier, initialState: initialState)
        case .beacon(let beacon):
            let i = Int32(beacons.count)
            beacons.append(Beacon(identifier: identifier, condition: beacon, initialState: initialState, addedAt: addedAt))
            beaconsByUUID[beacon.uuid, default: []].append(i)
            byIdentifier[identifier] = .beacon(i)
        }
        identifiers.append(identifier)
    }

    private mutating func addGeographic(_ shape: GeographicShape, identifier: String, initialState: ConditionState) {
        let i = Int32(geographic.count)
        geographic.append(Geographic(identifier: identifier, shape: shape, initialState: initialState))
        byIdentifier[identifier] = .geographic(i)
        index.insert(i, box: shape.boundingBox)
    }

    /// Lays the index out anew when enough conditions were added since it was built (they are checked
    /// one by one until then). The engine calls it before evaluating records.
    mutating func prepareIndex() {
        if index.needsRebuild { index.rebuild() }
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
        case .geographic(let i)?: geographic[Int(i)].shape.condition
        case .beacon(let i)?: .beacon(beacons[Int(i)].condition)
        case nil: nil
        }
    }
}

/// A geographic condition compiled for evaluation.
enum GeographicShape: Sendable {
    case circle(CircleShape)
    case polygon(PolygonShape, PolygonalGeographicCondition)

    var boundingBox: BoundingBox {
        switch self {
        case .circle(let circle): circle.boundingBox
        case .polygon(let shape, _): shape.boundingBox
        }
    }

    var condition: Condition {
        switch self {
        case .circle(let circle): .circle(circle.condition)
        case .polygon(_, let polygon): .polygon(polygon)
        }
    }

    /// Which side of the boundary the frame's fix is on with its margin to spare, `nil` if neither.
    @inline(__always)
    func side(_ frame: inout FixFrame) -> Side? {
        switch self {
        case .circle(let circle):
            return circle.side(&frame)
        case .polygon(let shape, _):
            return shape.side(of: frame.coordinate, margin: frame.margin)
        }
    }
}
