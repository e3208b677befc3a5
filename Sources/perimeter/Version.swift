/// The tool's version, the one place it is written: `perimeter --version` prints it. Semantic
/// versioning, below 1.0 while the library's API may still change between minor versions.
enum ToolVersion {
    static let current = "0.1.0"
}
