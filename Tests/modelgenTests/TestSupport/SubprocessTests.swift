import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The test support's child processes, which every CLI, stress and PostgreSQL test relies on:
/// a child inherits nothing but its three streams, a deadline kills it, and input and output of
/// any size pass without deadlock.
@Suite struct SubprocessTests {
    @Test func aChildInheritsOnlyItsStandardStreams() throws {
        // A pipe of this process that is not close-on-exec, as Foundation and other libraries make.
        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0)
        defer { close(ends[0]) }
        let child = try ChildProcess("/bin/sh", ["-c", "ls /proc/$$/fd; exec sleep 30"])
        defer {
            child.kill()
            _ = child.finish(timeout: 10)
        }
        close(ends[1])
        // With our write end closed and none inherited, the read end is at its end at once.
        var descriptor = pollfd(fd: ends[0], events: Int16(POLLIN), revents: 0)
        #expect(poll(&descriptor, 1, 5_000) == 1, "a child holds this process's pipe open")
        var byte: UInt8 = 0
        #expect(read(ends[0], &byte, 1) == 0)

        let listing = try ChildProcess("/bin/sh", ["-c", "ls /proc/$$/fd"]).finish(timeout: 60)
        #expect(listing.status == 0, "\(listing.stderr)")
        #expect(listing.stdout.split(separator: "\n").sorted() == ["0", "1", "2"], "\(listing.stdout)")
    }

    @Test func aChildPastItsDeadlineIsKilledWithItsGroup() throws {
        let start = Date()
        // The shell's own child keeps standard output open: it is in the group, so it dies too.
        let result = try Subprocess.run("/bin/sh", ["-c", "echo begun; sleep 60 & sleep 60"], timeout: 0.5)
        #expect(result.timedOut)
        #expect(result.status == 128 + SIGKILL)
        #expect(result.stdout == "begun\n")
        #expect(result.stderr.contains("killed after"))
        #expect(Date().timeIntervalSince(start) < 10)
    }

    @Test func largeInputAndOutputPassWithoutDeadlock() throws {
        // More than any pipe buffer in each direction at once.
        let text = String(repeating: "0123456789abcdef\n", count: 200_000)
        let result = try Subprocess.run("/bin/cat", [], input: text, timeout: 120)
        #expect(!result.timedOut)
        #expect(result.status == 0)
        #expect(result.stdout == text)
    }

    @Test func statusErrorsAndDirectoryAreReported() throws {
        let directory = FileManager.default.temporaryDirectory.resolvingSymlinksInPath().path
        let result = try Subprocess.run(
            "/bin/sh", ["-c", "pwd; echo oops >&2; exit 3"], directory: directory, timeout: 60)
        #expect(result.status == 3)
        #expect(result.stdout == directory + "\n")
        #expect(result.stderr == "oops\n")
        #expect(throws: Subprocess.Failure.self) { try Subprocess.run("/nonexistent/program", []) }
    }
}
