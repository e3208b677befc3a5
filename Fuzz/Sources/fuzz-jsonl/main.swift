import FuzzSupport
import PerimeterIO

/// The jsonl observation reader, through a file and a pipe, line by line and in runs of plain fixes on one
/// and two threads: see `ObservationFuzz`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    ObservationFuzz.check(UnsafeBufferPointer(start: data, count: size), format: .jsonLines)
    return 0
}

Fuzz.run { data, size in fuzz(data ?? UnsafePointer(Fuzz.emptyInput), size) }
