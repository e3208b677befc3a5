import Foundation

extension Duration {
    /// The duration in seconds, as the JSON line and the percentiles give it.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

/// The median and tail of one-call latencies (seconds), in microseconds.
func percentiles(_ samples: [Double]) -> String {
    let s = samples.sorted()
    func p(_ q: Double) -> Double { s[min(s.count - 1, Int(Double(s.count) * q))] * 1e6 }
    return String(format: "p50 %.2f µs, p90 %.2f µs, p99 %.2f µs, p99.9 %.2f µs", p(0.5), p(0.9), p(0.99), p(0.999))
}
