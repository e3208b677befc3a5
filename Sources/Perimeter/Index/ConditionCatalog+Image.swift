import Foundation

extension ConditionCatalog {
    /// Why the catalogue cannot be written as an image, if it cannot: an image holds conditions
    /// there from the start (as a conditions file gives them), not a history of changes.
    var imageRefusal: String? {
        if hasRemovedGeographic || beaconRemoved.contains(true) { return "a condition was removed" }
        if beacons.contains(where: { $0.addedAt != nil }) { return "a beacon condition was added after records" }
        return nil
    }

    /// Writes every condition in addition order, compiled (a polygon as its locator), the condition
    /// index and the cover grid as laid out: what `init(image:)` needs to be this catalogue without
    /// building anything. Call it after `prepareIndex`, as evaluation would have called it.
    func write(to image: inout IndexImageWriter) {
        precondition(imageRefusal == nil, imageRefusal ?? "")
        image.write(circleShapes.count)
        image.write(polygonShapes.count)
        image.write(beacons.count)
        forEachAddition { entry in
            switch entry {
            case .geographic(let i):
                let condition = geographic[Int(i)]
                image.write(UInt8(condition.isPolygon ? 1 : 0))
                image.write(geographicIdentifiers[Int(i)])
                image.write(condition.initialState.imageCode)
                write(audiences.audience(geographic: i), to: &image)
                if condition.isPolygon {
                    polygonShapes[Int(condition.slot)].locator.write(to: &image)
                } else {
                    let circle = circle(inSlot: condition.slot)
                    image.write(circle.center.latitude); image.write(circle.center.longitude); image.write(circle.radius)
                }
            case .beacon(let i):
                let beacon = beacons[Int(i)]
                image.write(UInt8(2))
                image.write(beaconIdentifiers[Int(i)])
                image.write(beacon.initialState.imageCode)
                write(audiences.audience(beacon: i), to: &image)
                image.write(beacon.condition.uuid.uuid)
                image.write(beacon.condition.major.map(Int32.init) ?? -1)
                image.write(beacon.condition.minor.map(Int32.init) ?? -1)
            }
        }
        index.write(to: &image)
        coverGrid.write(to: &image)
    }

    private func write(_ audience: ConditionAudience, to image: inout IndexImageWriter) {
        image.write(audience.devices)
        image.write(audience.groups)
    }

    /// The catalogue `write(to:)` wrote: its conditions added again in order, with their polygons'
    /// locators, the condition index and the cover grid read rather than built.
    init(image: inout IndexImageReader) throws(IndexImageProblem) {
        self.init()
        let circles = try image.readCount(), polygons = try image.readCount(), beaconCount = try image.readCount()
        // (Each condition takes at least 50 bytes: a crafted count must not reserve more than the image could hold.)
        guard circles + polygons + beaconCount <= image.remaining / 50 else {
            throw IndexImageProblem("more conditions than the image could hold")
        }
        reserve(circles: circles, polygons: polygons, beacons: beaconCount)
        for _ in 0..<(circles + polygons + beaconCount) {
            let kind = try image.read(UInt8.self)
            let identifier = try image.readString()
            let state = try ConditionState(imageCode: image.read())
            let audience = ConditionAudience(devices: try image.readStrings(), groups: try image.readStrings())
            let condition: CompiledCondition
            switch kind {
            case 0:
                let center = Coordinate(latitude: try image.read(), longitude: try image.read()), radius: Double = try image.read()
                guard let circle = try? CircularGeographicCondition(center: center, radius: radius) else {
                    throw IndexImageProblem("circle \(identifier) is not a circle")
                }
                condition = .circle(circle)
            case 1:
                condition = .polygon(PolygonShape(locator: try PolygonLocator(image: &image)))
            case 2:
                let uuid = UUID(uuid: try image.read())
                let major: Int32 = try image.read(), minor: Int32 = try image.read()
                guard let identity = BeaconIdentityCondition(uuid: uuid, major: major, minor: minor) else {
                    throw IndexImageProblem("beacon \(identifier) has no such identity")
                }
                condition = .beacon(identity)
            default:
                throw IndexImageProblem("a condition of kind \(kind)")
            }
            do {
                try add(condition, identifier: identifier, initialState: state, addedAt: nil, audience: audience)
            } catch {
                throw IndexImageProblem("condition \(identifier): \(error)")
            }
        }
        guard circleShapes.count == circles, polygonShapes.count == polygons, beacons.count == beaconCount else {
            throw IndexImageProblem("the conditions' counts do not match")
        }
        install(try ConditionIndex(image: &image, conditions: geographic.count), try CoverGrid(image: &image, geographicCount: geographic.count))
    }
}

private extension ConditionState {
    var imageCode: UInt8 {
        switch self {
        case .unknown: 0
        case .satisfied: 1
        case .unsatisfied: 2
        case .unmonitored, .dwelling: preconditionFailure("not a starting state")
        }
    }

    init(imageCode: UInt8) throws(IndexImageProblem) {
        switch imageCode {
        case 0: self = .unknown
        case 1: self = .satisfied
        case 2: self = .unsatisfied
        default: throw IndexImageProblem("a starting state of \(imageCode)")
        }
    }
}

private extension BeaconIdentityCondition {
    /// The identity with a major and minor each −1 when left out.
    init?(uuid: UUID, major: Int32, minor: Int32) {
        switch (UInt16(exactly: major), UInt16(exactly: minor), major, minor) {
        case (nil, nil, -1, -1): self.init(uuid: uuid)
        case (let major?, nil, _, -1): self.init(uuid: uuid, major: major)
        case (let major?, let minor?, _, _): self.init(uuid: uuid, major: major, minor: minor)
        default: return nil
        }
    }
}
