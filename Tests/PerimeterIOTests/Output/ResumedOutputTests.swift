import Foundation
import Testing
@testable import PerimeterIO

/// A staged output taken up again by a run that goes on: cut back to the length saved, a partial file
/// named but not made yet made, one missing or shorter than saved refused; the target replaced only
/// at `commit()`.
@Suite struct ResumedOutputTests {
    @Test func aPartialFileIsCutBackAndCommitted() throws {
        let target = Fixture.temporaryPath("events.jsonl")
        try "before\n".write(toFile: target, atomically: true, encoding: .utf8)
        let partial = BufferedOutput.newPartialPath(for: target)
        #expect(partial.hasPrefix(target + ".partial-") && !FileManager.default.fileExists(atPath: partial))
        do {
            // Named, not made: made, empty.
            var output = try BufferedOutput(resuming: partial, replacing: target, length: 0)
            try output.append("one\ntwo\n")
            try output.sync()
            #expect(output.length == 8)
        }
        do {
            // Written past the saved length (4 bytes: "one\n"): cut back, appended to, committed.
            var output = try BufferedOutput(resuming: partial, replacing: target, length: 4)
            #expect(try String(contentsOfFile: target, encoding: .utf8) == "before\n")
            try output.append("three\n")
            try output.commit()
        }
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "one\nthree\n")
        #expect(!FileManager.default.fileExists(atPath: partial))
        // Gone, or shorter than saved: refused.
        #expect(throws: InputError.self) { _ = try BufferedOutput(resuming: partial, replacing: target, length: 4) }
        try "x".write(toFile: partial, atomically: true, encoding: .utf8)
        #expect(throws: InputError.self) { _ = try BufferedOutput(resuming: partial, replacing: target, length: 4) }
    }
}
