/// Seeded choices for the generators of the tests.
extension RandomNumberGenerator {
    mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &self) < percent }
    mutating func pick<T>(_ elements: [T]) -> T { elements[Int.random(in: 0..<elements.count, using: &self)] }
}
