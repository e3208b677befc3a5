#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a run stopped by SIGINT, SIGTERM or SIGHUP says before it exits: that its staged outputs
/// were left as they were, and where the output written so far is. The note is made before the run
/// starts, so that the handler only writes it and exits (nothing else is safe in a signal handler).
enum InterruptNote {
    /// The note's bytes, written by the handler; set once, before the handlers are installed.
    nonisolated(unsafe) private static var note: UnsafeMutableBufferPointer<UInt8>?

    /// Installs the handlers with `text` as the note (nothing is installed for an empty note: the
    /// signals then end the process as usual).
    static func install(_ text: String) {
        guard !text.isEmpty else { return }
        let bytes = Array(text.utf8)
        let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: bytes.count)
        _ = buffer.initialize(from: bytes)
        note = buffer
        for signal in [SIGINT, SIGTERM, SIGHUP] {
            var action = sigaction()
            #if canImport(Glibc)
            action.__sigaction_handler.sa_handler = { signal in
                if let note = InterruptNote.note { _ = write(2, note.baseAddress, note.count) }
                _exit(ExitStatus.interrupted(by: signal))
            }
            #endif
            sigemptyset(&action.sa_mask)
            sigaction(signal, &action, nil)
        }
        // A process inherits its parent's blocked signals (a test runner's spawn blocks many): the
        // handlers are no use unless the signals can arrive.
        var signals = sigset_t()
        sigemptyset(&signals)
        for signal in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&signals, signal) }
        pthread_sigmask(SIG_UNBLOCK, &signals, nil)
    }
}
