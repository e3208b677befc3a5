extension Duration {
    /// The duration in seconds, for the summary and its progress reports.
    var seconds: Double {
        let (s, attoseconds) = components
        return Double(s) + Double(attoseconds) / 1e18
    }
}
