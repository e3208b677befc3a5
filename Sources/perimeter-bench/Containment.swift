import Perimeter

// The stateless modes: which conditions contain each point (or match each sighting), through the
// engine's containment query, summed into the peers' count and hash (Benchmarks/peers/README.md).

/// The batch query's buffers, kept across repeats as a caller streaming batches would keep them: the
/// points in the engine's form and the answer lists.
struct LocateBuffers {
    var points: [Coordinate] = []
    var conditions: [Int32] = []
    var offsets: [Int] = []
}

/// Containment count and hash of every sighting's matching beacon conditions, one call per sighting.
func matchAll(_ query: ContainmentQuery, _ identities: [BeaconIdentity]) -> (Int, UInt64) {
    var containments = 0, hash: UInt64 = 0
    var matched: [Int32] = []
    matched.reserveCapacity(64)
    for i in identities.indices {
        matched.removeAll(keepingCapacity: true)
        query.conditions(matching: identities[i], into: &matched)
        containments += matched.count
        for j in matched { hash &+= UInt64(i) &* 1_000_003 &+ UInt64(j) }
    }
    return (containments, hash)
}

/// The same through the batch query.
func matchBatch(_ query: ContainmentQuery, _ identities: [BeaconIdentity], _ buffers: inout LocateBuffers) -> (Int, UInt64) {
    query.conditions(matching: identities, conditions: &buffers.conditions, offsets: &buffers.offsets)
    return hashAnswers(buffers, count: identities.count)
}

/// Containment count and hash of every point's containing geographic conditions, one call per point.
func locateAll(_ query: inout ContainmentQuery, _ lat: [Double], _ lon: [Double]) -> (Int, UInt64) {
    var containments = 0, hash: UInt64 = 0
    var found: [Int32] = []
    found.reserveCapacity(64)
    for i in lat.indices {
        found.removeAll(keepingCapacity: true)
        query.conditions(containing: Coordinate(latitude: lat[i], longitude: lon[i]), into: &found)
        containments += found.count
        for j in found { hash &+= UInt64(i) &* 1_000_003 &+ UInt64(j) }
    }
    return (containments, hash)
}

/// The same through the batch query: all points in one call, in cell order inside it.
func locateBatch(_ query: inout ContainmentQuery, _ buffers: inout LocateBuffers) -> (Int, UInt64) {
    query.conditions(containing: buffers.points, conditions: &buffers.conditions, offsets: &buffers.offsets)
    return hashAnswers(buffers, count: buffers.points.count)
}

/// Containment count and hash of a batch query's answers for `count` records.
func hashAnswers(_ buffers: LocateBuffers, count: Int) -> (Int, UInt64) {
    // The peers' Σ over answers (i, j) of i·1,000,003 + j, summed as 1,000,003·Σ i·(answers of i)
    // + Σ j (the same value in wrapping arithmetic): two flat loops, without a branch on how many
    // answers each point has, which as a nested loop cost a mispredicted branch per point.
    var weighted: UInt64 = 0, sum: UInt64 = 0
    buffers.offsets.withUnsafeBufferPointer { offsets in
        for i in 0..<count { weighted &+= UInt64(i) &* UInt64(offsets[i + 1] &- offsets[i]) }
    }
    buffers.conditions.withUnsafeBufferPointer { conditions in
        for j in conditions { sum &+= UInt64(j) }
    }
    return (buffers.conditions.count, weighted &* 1_000_003 &+ sum)
}
