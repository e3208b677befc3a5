extension MonitoringEngine {
    /// The image format's version: an image of another version is refused. It changes whenever
    /// what an image holds, or what its parts mean, does.
    public static let indexImageVersion: UInt32 = 1
    private static let indexImageMagic = Array("perimeter index image\n".utf8)

    /// The engine's conditions with their indexes built, as bytes that `init(policy:indexImage:)`
    /// reads back in another process instead of compiling the conditions and building the indexes
    /// again: loading an image of 20,000 conditions takes a small part of what building them does.
    ///
    /// The image is not a file format and makes no promise across builds: it holds this build's
    /// arrays as they are in memory, and a store that keeps one should keep with it what it was made
    /// from (the conditions, the build) and check both before loading it.
    ///
    /// ```swift
    /// var engine = MonitoringEngine(policy: policy)
    /// try engine.add(contentsOf: definitions)
    /// let image = try engine.indexImage()
    /// // … later, perhaps in another process of the same build:
    /// let loaded = try image.withUnsafeBytes { try MonitoringEngine(policy: policy, indexImage: $0) }
    /// ```
    ///
    /// - Throws: when a condition was removed, or a beacon condition added after records: an image
    ///   holds conditions there from the start, not a history of changes.
    public func indexImage() throws(IndexImageProblem) -> [UInt8] {
        if let refusal = catalog.imageRefusal { throw IndexImageProblem("no index image: \(refusal)") }
        // The indexes as the first record would lay them out.
        var prepared = catalog
        prepared.prepareIndex(threads: batchThreads)
        var image = IndexImageWriter()
        for byte in Self.indexImageMagic { image.write(byte) }
        image.write(Self.indexImageVersion)
        image.write(Self.layoutMark)
        prepared.write(to: &image)
        return image.bytes
    }

    /// An engine with the conditions of an image `indexImage()` gave, their indexes read rather than
    /// built, and no device seen yet: it gives the events the engine the image was taken of would
    /// have given from its start.
    ///
    /// - Parameters:
    ///   - policy: the policy to evaluate under. The conditions' starting states are the image's (an
    ///     `assuming` left out took the default of the policy the image was made under).
    ///   - bytes: what `indexImage()` gave, in this build.
    /// - Throws: when the bytes are not an image of this version and build, or do not hold together.
    public init(policy: MonitoringPolicy, indexImage bytes: UnsafeRawBufferPointer) throws(IndexImageProblem) {
        self.init(policy: policy)
        var image = IndexImageReader(bytes)
        for byte in Self.indexImageMagic where try image.read(UInt8.self) != byte {
            throw IndexImageProblem("not an index image")
        }
        let version = try image.read(UInt32.self)
        guard version == Self.indexImageVersion else {
            throw IndexImageProblem("an index image of version \(version); this build reads version \(Self.indexImageVersion)")
        }
        guard try image.read(UInt64.self) == Self.layoutMark else {
            throw IndexImageProblem("an index image of a machine with another byte order or word size")
        }
        let limits = catalog.perDeviceLimits  // (as `init(policy:)` set them)
        catalog = try ConditionCatalog(image: &image)
        catalog.perDeviceLimits = limits
        guard image.isAtEnd else { throw IndexImageProblem("bytes after the index image's end") }
    }

    /// Byte order and word size in one number: its bytes read in another order, or its halves cut
    /// to another width, give another.
    private static let layoutMark = UInt64(0x0102_0304_0506_0000) | UInt64(MemoryLayout<Int>.size)
}
