import Synchronization

/// A run of consecutive features that one thread parses and reads.
///
/// `@unchecked Sendable`: each chunk is filled by the one thread that claimed it, and read only after
/// every thread has finished.
final class FeatureChunk: @unchecked Sendable {
    private(set) var outcomes: [FeatureOutcome] = []

    /// Parses and reads `elements` (features `firstIndex`…); `false` as soon as one is not JSON.
    func read(_ bytes: UnsafeBufferPointer<UInt8>, _ elements: ArraySlice<JSONParser.DeferredValue>, firstIndex: Int,
              reader: FeatureReader, collectionLine: Int) -> Bool {
        var outcomes: [FeatureOutcome] = []
        outcomes.reserveCapacity(elements.count)
        for (offset, element) in elements.enumerated() {
            guard let feature = try? JSONParser.parse(bytes, deferred: element, keepingNumberText: false) else { return false }
            outcomes.append(reader.readFeature(feature, index: firstIndex + offset, collectionLine: collectionLine))
        }
        self.outcomes = outcomes
        return true
    }
}

/// Hands out chunk numbers in order to whichever thread asks, until they run out or one thread stops.
final class ChunkClaims: Sendable {
    let count: Int
    private let next = Atomic<Int>(0)
    private let halted = Atomic<Bool>(false)

    init(count: Int) {
        self.count = count
    }

    func claim() -> Int? {
        guard !halted.load(ordering: .relaxed) else { return nil }
        let k = next.wrappingAdd(1, ordering: .relaxed).oldValue
        return k < count ? k : nil
    }

    func stop() { halted.store(true, ordering: .relaxed) }

    var stopped: Bool { halted.load(ordering: .relaxed) }
}
