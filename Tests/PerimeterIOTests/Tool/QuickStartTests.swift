import Foundation
import Testing

/// README "The library" shows the quick start that `Examples/` builds (`.ci/run` builds it): the two
/// must not drift apart, so the code block is the example's `main.swift`, byte for byte.
@Suite struct QuickStartTests {
    static let example = "Examples/Sources/QuickStart/main.swift"

    /// The first Swift code block of the README's section `heading`.
    static func codeBlock(in readme: String, section heading: String) -> String? {
        guard let section = readme.range(of: "\n" + heading + "\n"),
              let open = readme.range(of: "\n```swift\n", range: section.upperBound..<readme.endIndex),
              let close = readme.range(of: "\n```\n", range: open.upperBound..<readme.endIndex) else { return nil }
        // (The block runs to its last line's newline.)
        return String(readme[open.upperBound...close.lowerBound])
    }

    @Test func theREADMEsQuickStartIsTheExample() throws {
        let readme = try String(contentsOf: Fixture.root.appendingPathComponent("README.md"), encoding: .utf8)
        let block = try #require(Self.codeBlock(in: readme, section: "## The library"))
        let example = try String(contentsOf: Fixture.root.appendingPathComponent(Self.example), encoding: .utf8)
        #expect(block == example)
        // It loads a conditions file in one call and prints events: the quick start, not a stub.
        #expect(example.contains("monitor.add(contentsOf: ConditionsReader.read(contentsOf: path))"))
        #expect(example.hasPrefix("import Foundation\n"))
    }

    @Test func findsTheBlock() {
        let text = "# T\n\n## The library\n\nSome words.\n\n```swift\nlet a = 1\nprint(a)\n```\n\n```swift\nnot this\n```\n"
        #expect(Self.codeBlock(in: text, section: "## The library") == "let a = 1\nprint(a)\n")
        #expect(Self.codeBlock(in: text, section: "## Elsewhere") == nil)
    }
}
