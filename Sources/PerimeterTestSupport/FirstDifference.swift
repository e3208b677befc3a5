/// Where two arrays first differ, described, or `nil` when they are equal.
///
/// For long arrays of events: `#expect(a == b)` on a failure renders a difference of the whole
/// arrays, which for tens of thousands of elements takes longer than the test itself.
public func firstDifference<Element: Equatable>(_ got: [Element], _ expected: [Element]) -> String? {
    if let k = zip(got.indices, expected.indices).first(where: { got[$0.0] != expected[$0.1] })?.0 {
        return "element \(k) of \(got.count): \(got[k]), expected \(expected[k])"
    }
    return got.count == expected.count ? nil : "\(got.count) elements, expected \(expected.count)"
}
