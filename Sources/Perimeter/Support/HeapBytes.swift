/// Heap bytes held by flat arrays, for `MonitoringEngine.conditionStorageBytes`: each array's
/// capacity times its element's stride (headers and allocator rounding left out).
enum HeapBytes {
    @inline(__always)
    static func of<T>(_ array: [T]) -> Int { array.capacity * MemoryLayout<T>.stride }

    /// A string's own storage: none when it is stored inline (up to 15 UTF-8 bytes), else its bytes
    /// and the storage object's header.
    static func of(_ string: String) -> Int {
        let count = string.utf8.count
        return count <= 15 ? 0 : count + 32
    }
}
