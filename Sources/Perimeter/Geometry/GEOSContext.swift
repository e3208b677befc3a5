import CGEOS

/// Owns one reentrant GEOS context handle and frees it.
///
/// GEOS contexts and the geometries made with them are not thread-safe, so this type is deliberately
/// not `Sendable`: each engine owns its own context, confined to the actor or task that owns the engine.
final class GEOSContext {
    let handle: GEOSContextHandle_t
    /// The last error GEOS reported through this context (used to explain a failed call).
    fileprivate(set) var lastError: String?

    init() {
        guard let handle = GEOS_init_r() else {
            preconditionFailure("GEOS could not create a context (out of memory)")
        }
        self.handle = handle
        GEOSContext_setErrorMessageHandler_r(handle, { message, userData in
            guard let message, let userData else { return }
            let context = Unmanaged<GEOSContext>.fromOpaque(userData).takeUnretainedValue()
            context.lastError = String(cString: message)
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit {
        GEOS_finish_r(handle)
    }

    /// Takes and clears the last error message.
    func takeError(default fallback: String) -> String {
        defer { lastError = nil }
        return lastError ?? fallback
    }
}

/// Owns one `GEOSGeometry` and destroys it; keeps its context alive for as long as it lives.
final class GEOSGeometryHandle {
    let context: GEOSContext
    let pointer: OpaquePointer

    init(context: GEOSContext, pointer: OpaquePointer) {
        self.context = context
        self.pointer = pointer
    }

    deinit {
        GEOSGeom_destroy_r(context.handle, pointer)
    }

    /// Whether this geometry covers `other` (boundary included), by GEOS's plain, unprepared predicate.
    func covers(_ other: GEOSGeometryHandle) -> Bool {
        GEOSCovers_r(context.handle, pointer, other.pointer) == 1
    }

    /// `nil` when the geometry is valid (OGC), else GEOS's reason.
    var invalidityReason: String? {
        if GEOSisValid_r(context.handle, pointer) == 1 { return nil }
        guard let reason = GEOSisValidReason_r(context.handle, pointer) else {
            return context.takeError(default: "invalid geometry")
        }
        defer { GEOSFree_r(context.handle, reason) }
        return String(cString: reason)
    }

    /// A point geometry.
    static func point(_ c: Coordinate, in context: GEOSContext) -> GEOSGeometryHandle {
        guard let p = GEOSGeom_createPointFromXY_r(context.handle, c.longitude, c.latitude) else {
            preconditionFailure("GEOS could not create a point: \(context.takeError(default: "unknown error"))")
        }
        return GEOSGeometryHandle(context: context, pointer: p)
    }
}

/// Owns one prepared geometry and destroys it; keeps the geometry it was prepared from alive.
final class GEOSPreparedGeometryHandle {
    let geometry: GEOSGeometryHandle
    let pointer: OpaquePointer

    init(preparing geometry: GEOSGeometryHandle) {
        guard let prepared = GEOSPrepare_r(geometry.context.handle, geometry.pointer) else {
            preconditionFailure("GEOS could not prepare a geometry: \(geometry.context.takeError(default: "unknown error"))")
        }
        self.geometry = geometry
        self.pointer = prepared
    }

    deinit {
        GEOSPreparedGeom_destroy_r(geometry.context.handle, pointer)
    }

    /// Whether the prepared geometry covers `other` (boundary included).
    func covers(_ other: GEOSGeometryHandle) -> Bool {
        GEOSPreparedCovers_r(geometry.context.handle, pointer, other.pointer) == 1
    }
}
