import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Runs a program with `posix_spawn` and collects its output with `poll` and `waitpid`.
///
/// Foundation's `Process` can miss the exit of a child whose own children live on (as `pg_ctl`
/// leaves the server running), so the PostgreSQL helpers use this instead.
enum Subprocess {
    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private static let spawnLock = NSLock()

    /// Starts a program that outlives this call, with its standard streams on /dev/null.
    static func detach(_ executable: String, _ arguments: [String]) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd in Int32(0)...2 {
            posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0)
        }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        spawnLock.lock()
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        spawnLock.unlock()
        guard spawned == 0 else { throw Failure(description: "cannot run \(executable)") }
    }

    static func run(_ executable: String, _ arguments: [String], input: String? = nil) throws -> Output {
        var inPipe: [Int32] = [0, 0]
        var outPipe: [Int32] = [0, 0]
        var errPipe: [Int32] = [0, 0]
        // Pipes are made and the child spawned under one lock, with close-on-exec set, so children
        // spawned at the same time never hold each other's pipe ends open.
        spawnLock.lock()
        guard pipe(&inPipe) == 0, pipe(&outPipe) == 0, pipe(&errPipe) == 0 else {
            spawnLock.unlock()
            throw Failure(description: "pipe failed")
        }
        for fd in inPipe + outPipe + errPipe { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, inPipe[0], 0)
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
        // The pipes are close-on-exec, so children spawned at the same time never hold each
        // other's ends open; dup2 clears the flag on the three descriptors the child uses.
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        close(inPipe[0])
        close(outPipe[1])
        close(errPipe[1])
        spawnLock.unlock()
        guard spawned == 0 else {
            close(inPipe[1]); close(outPipe[0]); close(errPipe[0])
            throw Failure(description: "cannot run \(executable): \(String(cString: strerror(spawned)))")
        }
        // Feed the input from another thread so a child that writes a lot cannot deadlock us.
        let payload = Array((input ?? "").utf8)
        let inputDescriptor = inPipe[1]
        if payload.isEmpty {
            close(inputDescriptor)
        } else {
            Thread {
            payload.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let written = write(inputDescriptor, buffer.baseAddress! + offset, buffer.count - offset)
                    if written <= 0 { break }
                    offset += written
                }
            }
            close(inputDescriptor)
            }.start()
        }
        var out: [UInt8] = []
        var err: [UInt8] = []
        var fds = [pollfd(fd: outPipe[0], events: Int16(POLLIN), revents: 0), pollfd(fd: errPipe[0], events: Int16(POLLIN), revents: 0)]
        var open = 2
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while open > 0 {
            guard poll(&fds, 2, -1) > 0 else { continue }
            for index in 0..<2 where fds[index].fd >= 0 && fds[index].revents != 0 {
                let count = read(fds[index].fd, &buffer, buffer.count)
                if count > 0 {
                    if index == 0 { out += buffer[0..<count] } else { err += buffer[0..<count] }
                } else {
                    close(fds[index].fd)
                    fds[index].fd = -1
                    open -= 1
                }
            }
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let exitCode = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return Output(status: exitCode, stdout: String(decoding: out, as: UTF8.self), stderr: String(decoding: err, as: UTF8.self))
    }
}
