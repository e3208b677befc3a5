import FuzzSupport

/// The GeoJSON conditions reader: see `ConditionsFuzz`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    ConditionsFuzz.check(UnsafeBufferPointer(start: data, count: size))
    return 0
}

Fuzz.run { data, size in fuzz(data ?? UnsafePointer(Fuzz.emptyInput), size) }
