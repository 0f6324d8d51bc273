import CSpawn
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `kill(2)`, under a name the `ChildProcess.kill()` method does not hide.
private func send(_ signal: Int32, to pid: pid_t) {
    _ = kill(pid, signal)
}

/// Starts `executable` through `modelgen_spawn` with `arguments` as C strings.
private func spawn(_ executable: String, _ arguments: [String], directory: String?, streams: [Int32]) throws -> pid_t {
    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    let directoryPath = directory.flatMap { strdup($0) }
    defer { free(directoryPath) }
    var pid: pid_t = 0
    let error = modelgen_spawn(&pid, executable, argv, directoryPath, streams)
    guard error == 0 else {
        throw ChildProcess.Failure(description: "cannot run \(executable): \(String(cString: strerror(error)))")
    }
    return pid
}

/// A child process of a test, started with `posix_spawn` and followed with `poll` and `waitpid`
/// on the calling thread alone (no Foundation `Process`, whose exit monitoring and run-loop
/// waiting can miss an exit under many concurrent children, no dispatch queue to read a pipe).
///
/// The child inherits no descriptor but its three standard streams, so a long-lived grandchild
/// (the PostgreSQL server that `pg_ctl` leaves running) can never hold another test's pipe open,
/// which would keep that test waiting for an end of file that never comes. Every wait has a
/// deadline: a child still running then is killed with its process group (each child starts one)
/// and the output says so, so a hang fails one test instead of stopping the suite.
public final class ChildProcess {
    public struct Output: Sendable {
        public var status: Int32
        public var stdout: String
        public var stderr: String
        public var seconds: Double
        /// Whether the child was killed because it outlived its deadline.
        public var timedOut: Bool
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    /// What becomes of the child's standard error.
    public enum StandardError {
        case captured
        case discarded
    }

    public let pid: pid_t
    public let command: String
    private let started = Date()
    /// Read ends of standard output and error, and the write end of standard input (-1: none or
    /// closed), polled by `finish`.
    private var output: Int32
    private var errors: Int32
    private var input: Int32
    private let inputBytes: [UInt8]
    /// How much of `inputBytes` the child has been given.
    private var inputWritten = 0
    private var finished: Output?

    /// Starts `executable` (an absolute path) with `arguments`, in `directory` when given, with
    /// `input` as its standard input (empty: at its end at once).
    public init(
        _ executable: String, _ arguments: [String], directory: String? = nil, input: String = "",
        standardError: StandardError = .captured
    ) throws {
        command = ([executable] + arguments).joined(separator: " ")
        var descriptors: [Int32] = []
        func pipe() throws -> (read: Int32, write: Int32) {
            var ends: [Int32] = [-1, -1]
            let error = modelgen_spawn_pipe(&ends)
            guard error == 0 else {
                descriptors.forEach { _ = close($0) }
                throw Failure(description: "cannot make a pipe: \(String(cString: strerror(error)))")
            }
            descriptors += ends
            return (ends[0], ends[1])
        }
        let stdinPipe = try pipe()
        let stdoutPipe = try pipe()
        let stderrPipe = standardError == .captured ? try pipe() : (read: Int32(-1), write: Int32(-1))

        let streams = [stdinPipe.read, stdoutPipe.write, stderrPipe.write]
        let spawned = Result { try spawn(executable, arguments, directory: directory, streams: streams) }
        // The child has its copies; this process keeps only its own ends.
        for descriptor in streams where descriptor >= 0 { close(descriptor) }
        do {
            pid = try spawned.get()
        } catch {
            for descriptor in [stdinPipe.write, stdoutPipe.read, stderrPipe.read] where descriptor >= 0 {
                close(descriptor)
            }
            throw error
        }
        output = stdoutPipe.read
        errors = stderrPipe.read
        inputBytes = Array(input.utf8)
        if inputBytes.isEmpty {
            close(stdinPipe.write)
            self.input = -1
        } else {
            // Written between reads, so a child that prints a lot before reading cannot block us.
            _ = fcntl(stdinPipe.write, F_SETFL, fcntl(stdinPipe.write, F_GETFL) | O_NONBLOCK)
            self.input = stdinPipe.write
        }
    }

    deinit {
        if finished == nil {
            kill()
            _ = finish(timeout: 10)
        }
    }

    /// Sends SIGKILL to the child alone (it gets no chance to clean up).
    public func kill() {
        send(SIGKILL, to: pid)
    }

    /// Feeds the input, collects the output until both streams end, and waits for the child.
    /// After `timeout` seconds the child and its process group are killed; what it printed until
    /// then is kept, and the output's `timedOut` is set. Calling it again returns the same output.
    public func finish(timeout: Double = 600) -> Output {
        if let finished { return finished }
        let deadline = Date().addingTimeInterval(timeout)
        var stdout: [UInt8] = []
        var stderr: [UInt8] = []
        var timedOut = false
        // Once killed, descendants outside the group may still hold a stream: a short grace, then
        // the streams are closed unread.
        var graceEnd: Date?
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while output >= 0 || errors >= 0 || input >= 0 {
            let now = Date()
            if graceEnd == nil, now >= deadline {
                timedOut = true
                send(SIGKILL, to: -pid)
                graceEnd = now.addingTimeInterval(5)
            }
            if let graceEnd, now >= graceEnd { break }
            let wait = (graceEnd ?? deadline).timeIntervalSince(now)
            var descriptors = [
                pollfd(fd: output, events: Int16(POLLIN), revents: 0),
                pollfd(fd: errors, events: Int16(POLLIN), revents: 0),
                pollfd(fd: input, events: Int16(POLLOUT), revents: 0),
            ]
            let ready = poll(&descriptors, 3, Int32(min(max(wait, 0) * 1000 + 1, 60_000)))
            if ready < 0 && errno != EINTR { break }
            if ready <= 0 { continue }
            for (index, descriptor) in descriptors.enumerated() where descriptor.fd >= 0 && descriptor.revents != 0 {
                if index == 2 {
                    writeInput(revents: descriptor.revents)
                    continue
                }
                let count = read(descriptor.fd, &buffer, buffer.count)
                if count > 0 {
                    if index == 0 { stdout += buffer[0..<count] } else { stderr += buffer[0..<count] }
                } else if count == 0 || (errno != EINTR && errno != EAGAIN) {
                    close(descriptor.fd)
                    if index == 0 { output = -1 } else { errors = -1 }
                }
            }
        }
        for descriptor in [output, errors, input] where descriptor >= 0 { close(descriptor) }
        output = -1
        errors = -1
        input = -1
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let signal = status & 0x7F
        var errorText = String(decoding: stderr, as: UTF8.self)
        if timedOut {
            errorText += "\n[test support: killed after \(Int(timeout)) s: \(command)]\n"
        }
        let result = Output(
            status: signal == 0 ? (status >> 8) & 0xFF : 128 + signal,
            stdout: String(decoding: stdout, as: UTF8.self),
            stderr: errorText,
            seconds: Date().timeIntervalSince(started),
            timedOut: timedOut)
        finished = result
        return result
    }

    /// Writes what the input pipe takes now; closes it when all is written or the child closed it.
    private func writeInput(revents: Int16) {
        if revents & Int16(POLLOUT) != 0, inputWritten < inputBytes.count {
            let written = inputBytes.withUnsafeBytes {
                write(input, $0.baseAddress! + inputWritten, $0.count - inputWritten)
            }
            if written > 0 {
                inputWritten += written
                if inputWritten < inputBytes.count { return }
            } else if written < 0 && (errno == EAGAIN || errno == EINTR) {
                return
            }
        }
        // All written, or the child is gone (POLLERR/POLLHUP, EPIPE).
        close(input)
        input = -1
    }
}

/// Running programs to completion, and starting ones that outlive the caller.
public enum Subprocess {
    public typealias Output = ChildProcess.Output
    public typealias Failure = ChildProcess.Failure

    /// Runs `executable` to completion; see `ChildProcess`.
    public static func run(
        _ executable: String, _ arguments: [String], directory: String? = nil, input: String? = nil,
        timeout: Double = 600
    ) throws -> Output {
        try ChildProcess(executable, arguments, directory: directory, input: input ?? "").finish(timeout: timeout)
    }

    /// Starts a program that outlives this call and is never waited for, with its standard
    /// streams on /dev/null and nothing else of this process inherited.
    public static func detach(_ executable: String, _ arguments: [String]) throws {
        _ = try spawn(executable, arguments, directory: nil, streams: [-1, -1, -1])
    }
}

/// Executables this package builds, found next to the running test bundle.
public enum BuiltProduct {
    /// The product `name` near the test bundle, or `environment` when that variable is set, or
    /// under `.build/debug` of `packageRoot`.
    public static func url(_ name: String, environment: String? = nil, packageRoot: URL) -> URL {
        if let environment, let path = ProcessInfo.processInfo.environment[environment] {
            return URL(fileURLWithPath: path)
        }
        var candidates: [URL] = []
        if let main = Bundle.main.executableURL { candidates.append(main.deletingLastPathComponent()) }
        candidates.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent())
        for directory in candidates {
            var current = directory
            for _ in 0..<4 {
                let binary = current.appendingPathComponent(name)
                if FileManager.default.isExecutableFile(atPath: binary.path) { return binary }
                current = current.deletingLastPathComponent()
            }
        }
        return packageRoot.appendingPathComponent(".build/debug/" + name)
    }
}
