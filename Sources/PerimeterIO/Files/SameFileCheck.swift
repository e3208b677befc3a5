#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Refuses a run whose paths name one file twice where that would lose data: an output that is also
/// an input (writing it would destroy what is being read), or two outputs that are one file (one
/// would replace the other). Files are compared as the system knows them — device and inode — so
/// that `./x` and `x`, a hard link and a symbolic link all count as the file they name; an output that
/// does not exist yet is compared by its directory's identity and its name. Only regular files and
/// files still to be made can lose data: `/dev/null` given twice is not refused.
///
/// ```swift
/// try SameFileCheck.refuseOverlaps(inputs: [("--observations", "obs.jsonl")],
///                                  outputs: [("--out", "./obs.jsonl")])   // throws: the same file
/// ```
public enum SameFileCheck {
    /// A path a run reads or writes, named by the option that gave it (`--out`); `-` is standard input
    /// for an input and standard output for an output.
    public typealias Use = (option: String, path: String)

    /// Throws an error naming both options when two uses are the same file and at least one writes it.
    public static func refuseOverlaps(inputs: [Use], outputs: [Use]) throws(InputError) {
        let read = inputs.map { ($0, identity(of: $0.path, standardDescriptor: 0)) }
        let written = outputs.map { ($0, identity(of: $0.path, standardDescriptor: 1)) }
        for (k, (output, outputFile)) in written.enumerated() {
            guard let outputFile else { continue }
            for (input, inputFile) in read where inputFile == outputFile {
                throw InputError(file: output.path == "-" ? "<stdout>" : output.path, line: nil, field: nil,
                                 message: "\(output.option) names the same file as \(input.option) (\(input.path == "-" ? "standard input" : input.path)): writing it would destroy the input")
            }
            for (other, otherFile) in written[..<k] where otherFile == outputFile {
                throw InputError(file: output.path == "-" ? "<stdout>" : output.path, line: nil, field: nil,
                                 message: "\(output.option) names the same file as \(other.option) (\(other.path == "-" ? "standard output" : other.path)): one output would replace the other")
            }
        }
    }

    /// What a path names, for comparing; `nil` for a file that cannot lose data by being written
    /// (a device, a pipe) or whose directory does not exist (opening it fails later, by name).
    enum Identity: Hashable {
        case existing(device: UInt64, inode: UInt64)
        case toBeMade(directory: UInt64, inode: UInt64, name: String)
    }

    static func identity(of path: String, standardDescriptor: Int32) -> Identity? {
        var status = stat()
        if path == "-" {
            guard fstat(standardDescriptor, &status) == 0 else { return nil }
            return regular(status)
        }
        if stat(path, &status) == 0 { return regular(status) }
        guard errno == ENOENT else { return nil }
        // Not there yet: its directory and its name.
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { path[...$0] }.map(String.init) ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        guard stat(directory, &status) == 0 else { return nil }
        return .toBeMade(directory: UInt64(status.st_dev), inode: UInt64(status.st_ino), name: name)
    }

    private static func regular(_ status: stat) -> Identity? {
        (status.st_mode & S_IFMT) == S_IFREG ? .existing(device: UInt64(status.st_dev), inode: UInt64(status.st_ino)) : nil
    }
}
