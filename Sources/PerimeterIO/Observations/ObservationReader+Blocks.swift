import Dispatch
import Perimeter
import Synchronization

extension ObservationReader {
    /// One block of whole lines decoded at once by `threads` threads, in chunks they take as they
    /// finish the last one: the first thread from the block's front, appending to `records` itself,
    /// the others from its back, each chunk to its own list. Then, in order, the other chunks'
    /// records are appended with their lines counted on, new device names numbered in order of first
    /// appearance and their fixes given their devices, and everything from the first line the fast
    /// path refused (or past `limit`) left unread. `nil` when no block could be taken.
    ///
    /// Chunks taken as threads come free, rather than one equal share of bytes a thread, keep a thread
    /// from waiting on the other at the end of every block: shares of equal bytes seldom finished
    /// together (the second thread starts late, and either may be interrupted).
    mutating func readBlockOfPlainFixes(into records: inout [FixRecord], limit: Int, format: ObservationFormat,
                                        deviceIDs: inout [DeviceID], naming name: (Int32, String) -> DeviceID) -> Int? {
        // A pipe's reads wait for its writer: its blocks are smaller, and nothing is read ahead of
        // them, so that a block's events are written once a megabyte of records has come.
        let most = lines.readsFile ? blockLimit : min(blockLimit, Self.largestStreamBlock)
        // (A block no longer than the longest line holds no line too long to read.)
        let bytes = min(lines.maxLineBytes, max(1 << 16, min(most, limit * bytesPerLine * 15 / 16)))
        guard let block = lines.peekLines(bytes: bytes, readingAhead: lines.readsFile) else { return nil }
        // A file's next block is read by another thread while this one is decoded.
        let ahead = lines.readsFile ? lines.readAhead(after: block.count, upTo: most) : nil
        let chunks = chunkBounds(block)
        while shares.count < chunks.count { shares.append(PlainFixShare()) }
        if format == .jsonLines {
            let firstLine = UnsafeBufferPointer(rebasing: block[..<(block.firstIndex(of: UInt8(ascii: "\n")) ?? block.count)])
            let line = firstLine.last == UInt8(ascii: "\r") ? UnsafeBufferPointer(rebasing: firstLine.dropLast()) : firstLine
            if layout?.decode(line, readable: block.count) == nil, let learned = PlainFixLayout(learning: line) { layout = learned }
        }
        let shares = Array(self.shares[..<chunks.count]), columns = csvColumns, known = devices, ids = deviceIDs, layout = layout
        let firstLine = lines.lineNumber + 1, before = records.count
        for share in shares { share.records.removeAll(keepingCapacity: true) }
        let front = FrontRun(records: records, firstLine: firstLine)
        records = []
        let claims = Mutex((front: 0, back: chunks.count))
        nonisolated(unsafe) let unsafeBlock = block
        DispatchQueue.concurrentPerform(iterations: threads) { k in
            if k == 1 { ahead?.perform() }
            while true {
                // The first thread takes chunks from the front, the others from the back.
                let chunk: Int? = claims.withLock { claims in
                    guard claims.front < claims.back else { return nil }
                    if k == 0 {
                        claims.front += 1
                        return claims.front - 1
                    }
                    claims.back -= 1
                    return claims.back
                }
                guard let chunk else { return }
                if k == 0 {
                    guard front.take(shares[chunk], decoding: unsafeBlock, chunks[chunk], format: format, columns: columns,
                                     layout: layout, known: known, deviceIDs: ids) else { return }
                } else {
                    shares[chunk].decode(unsafeBlock, chunks[chunk], format: format, columns: columns, layout: layout,
                                         known: known, deviceIDs: ids, firstLine: 0)
                }
            }
        }
        swap(&records, &front.records)

        var count = 0, consumed = block.count
        for (k, share) in shares.enumerated() {
            let numbers = share.newNames.names.map { devices.number($0) }
            nameDevices(&deviceIDs, name)
            let decoded = share.count
            let taken = min(decoded, limit - count)
            // A chunk of the front run is in `records` already, its lines counted.
            if k >= front.chunks {
                let lineBase = firstLine + count
                share.records.withUnsafeBufferPointer { decoded in
                    for j in 0..<taken {
                        var record = decoded[j]
                        record.cause += lineBase
                        records.append(record)
                    }
                }
            }
            for (j, new) in share.unresolved where j < taken {
                records[before + count + j].device = deviceIDs[Int(numbers[Int(new)])]
            }
            count += taken
            if taken < decoded || share.stop != nil {
                // (The front run may hold records past here.)
                records.removeLast(records.count - (before + count))
                if taken < decoded {
                    consumed = share.lineStart(ofFix: taken, in: block)
                } else if let stop = share.stop {
                    consumed = stop
                    runsAreShort = true
                }
                break
            }
        }
        lines.consume(consumed, lines: count)
        if let ahead { lines.finish(ahead) }
        if count > 0 { bytesPerLine = max(16, consumed / count) }
        return count
    }

    /// Ranges of `block` of about `chunkTarget` bytes each (at least one a thread), each starting after
    /// a newline.
    private func chunkBounds(_ block: UnsafeBufferPointer<UInt8>) -> [Range<Int>] {
        let count = max(threads, block.count / chunkTarget)
        var bounds = [0]
        for k in 1..<count {
            var b = max(bounds[k - 1], block.count * k / count)
            while b > 0 && b < block.count && block[b - 1] != UInt8(ascii: "\n") { b += 1 }
            bounds.append(b)
        }
        bounds.append(block.count)
        return zip(bounds, bounds.dropFirst()).map { $0..<$1 }
    }
}

/// The chunks a block's first thread decodes from its front, straight into the caller's list.
///
/// `@unchecked Sendable`: only the block's first thread touches it while the block is decoded.
private final class FrontRun: @unchecked Sendable {
    var records: [FixRecord]
    /// How many chunks, from the block's first, the run decoded.
    private(set) var chunks = 0
    private let firstLine: Int
    private let before: Int

    init(records: [FixRecord], firstLine: Int) {
        self.records = records
        self.firstLine = firstLine
        before = records.count
    }

    /// Decodes the next chunk through `share` into the run's list; `false` when the chunk ended at a
    /// line the fast path refused, after which the run takes no more.
    func take(_ share: PlainFixShare, decoding block: UnsafeBufferPointer<UInt8>, _ range: Range<Int>,
              format: ObservationFormat, columns: PlainRecordDecoder.CSVColumns?, layout: PlainFixLayout?,
              known: DeviceNames, deviceIDs: [DeviceID]) -> Bool {
        // (Every line before a refused one is a fix: the run's lines so far are its records.)
        let line = firstLine + records.count - before
        swap(&records, &share.records)
        share.decode(block, range, format: format, columns: columns, layout: layout, known: known, deviceIDs: deviceIDs,
                     firstLine: line)
        swap(&records, &share.records)
        chunks += 1
        return share.stop == nil
    }
}
