import CGEOS

/// Conversions between `GeoPolygon` values and GEOS geometries (x = longitude, y = latitude).
enum PolygonGeometry {
    /// A GEOS Polygon (one part) or MultiPolygon (several).
    static func make(_ polygons: [GeoPolygon], in context: GEOSContext) -> GEOSGeometryHandle {
        let h = context.handle
        var parts: [OpaquePointer?] = polygons.map { polygon in
            let shell = ring(polygon.exterior, in: context)
            var holes: [OpaquePointer?] = polygon.holes.map { ring($0, in: context) }
            let made = holes.withUnsafeMutableBufferPointer { buffer in
                GEOSGeom_createPolygon_r(h, shell, buffer.baseAddress, UInt32(buffer.count))
            }
            guard let made else {
                preconditionFailure("GEOS could not create a polygon: \(context.takeError(default: "unknown error"))")
            }
            return made
        }
        if parts.count == 1, let only = parts[0] {
            return GEOSGeometryHandle(context: context, pointer: only)
        }
        let collection = parts.withUnsafeMutableBufferPointer { buffer in
            GEOSGeom_createCollection_r(h, Int32(GEOS_MULTIPOLYGON.rawValue), buffer.baseAddress, UInt32(buffer.count))
        }
        guard let collection else {
            preconditionFailure("GEOS could not create a multipolygon: \(context.takeError(default: "unknown error"))")
        }
        return GEOSGeometryHandle(context: context, pointer: collection)
    }

    private static func ring(_ coordinates: [Coordinate], in context: GEOSContext) -> OpaquePointer {
        var flat: [Double] = []
        flat.reserveCapacity(coordinates.count * 2)
        for c in coordinates {
            flat.append(c.longitude)
            flat.append(c.latitude)
        }
        let sequence = flat.withUnsafeBufferPointer {
            GEOSCoordSeq_copyFromBuffer_r(context.handle, $0.baseAddress, UInt32(coordinates.count), 0, 0)
        }
        guard let sequence, let ring = GEOSGeom_createLinearRing_r(context.handle, sequence) else {
            preconditionFailure("GEOS could not create a ring: \(context.takeError(default: "unknown error"))")
        }
        return ring
    }

    /// The polygonal parts of any geometry (what make-valid returns may hold lines or points too,
    /// which have no area to monitor and are left out).
    static func polygons(of geometry: GEOSGeometryHandle) -> [GeoPolygon] {
        var result: [GeoPolygon] = []
        collect(geometry.pointer, context: geometry.context, into: &result)
        return result
    }

    private static func collect(_ g: OpaquePointer, context: GEOSContext, into result: inout [GeoPolygon]) {
        let h = context.handle
        let type = GEOSGeomTypeId_r(h, g)
        if type == Int32(GEOS_POLYGON.rawValue) {
            guard let shell = GEOSGetExteriorRing_r(h, g) else { return }
            var polygon = GeoPolygon(exterior: coordinates(of: shell, context: context))
            let holeCount = GEOSGetNumInteriorRings_r(h, g)
            if holeCount > 0 {
                for i in 0..<holeCount {
                    if let hole = GEOSGetInteriorRingN_r(h, g, i) {
                        polygon.holes.append(coordinates(of: hole, context: context))
                    }
                }
            }
            if !polygon.exterior.isEmpty { result.append(polygon) }
        } else if type == Int32(GEOS_MULTIPOLYGON.rawValue) || type == Int32(GEOS_GEOMETRYCOLLECTION.rawValue) {
            let n = GEOSGetNumGeometries_r(h, g)
            if n > 0 {
                for i in 0..<n {
                    if let part = GEOSGetGeometryN_r(h, g, i) {
                        collect(part, context: context, into: &result)
                    }
                }
            }
        }
    }

    private static func coordinates(of ring: OpaquePointer, context: GEOSContext) -> [Coordinate] {
        let h = context.handle
        guard let sequence = GEOSGeom_getCoordSeq_r(h, ring) else { return [] }
        var size: UInt32 = 0
        GEOSCoordSeq_getSize_r(h, sequence, &size)
        var result: [Coordinate] = []
        result.reserveCapacity(Int(size))
        for i in 0..<size {
            var x = 0.0, y = 0.0
            GEOSCoordSeq_getXY_r(h, sequence, i, &x, &y)
            result.append(Coordinate(latitude: y, longitude: x))
        }
        return result
    }

    /// Repairs an invalid polygon with GEOS's make-valid, keeping the polygonal parts.
    static func repaired(_ geometry: GEOSGeometryHandle) -> [GeoPolygon] {
        guard let valid = GEOSMakeValid_r(geometry.context.handle, geometry.pointer) else { return [] }
        return polygons(of: GEOSGeometryHandle(context: geometry.context, pointer: valid))
    }
}
