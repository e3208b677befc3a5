import Perimeter

extension BatchEvaluation {
    /// Where a record's text is, should it have to be quarantined: read only then, rather than a
    /// copy of its line made for every record.
    enum RecordText {
        /// The pending record at this position (its text kept only when the run quarantines).
        case pending(Int)
        /// The line the reader read last.
        case currentLine
    }

    /// The bytes of a record's text as written, for the quarantine output.
    func bytes(of text: RecordText) -> [UInt8] {
        switch text {
        case .pending(let k): keepTexts ? pendingTexts[k] : []
        case .currentLine: observations.currentLineBytes
        }
    }

    /// Counts a bad record and quarantines it (its line's bytes as written, or the first of them and
    /// its length when it was too long to hold), or stops with it: when the run does not quarantine,
    /// has no quarantine output, or the file itself is unusable (not one record's fault).
    mutating func reject(_ error: InputError, bytes: [UInt8], length: Int? = nil) throws(InputError) {
        summary.rejected += 1
        guard badRecords == .quarantine, outputs.quarantine != nil, !observations.failed else { throw error }
        try outputs.quarantine!.append(QuarantineEncoding.jsonLine(error, record: bytes, length: length))
    }
}
