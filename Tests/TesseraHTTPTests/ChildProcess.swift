import Glibc

/// A program started by a test with `posix_spawnp`, its standard streams on /dev/null, with no blocked signals
/// (threads of the test process block some, and a child inherits the mask). Waiting blocks the calling thread:
/// call ``run(_:)``, ``wait()`` and ``terminate()`` off the cooperative pool (e.g. in `EventLoop.offload`).
struct ChildProcess: Sendable {
    let pid: pid_t

    /// Whether `program` is found on the `PATH`.
    static func isInstalled(_ program: String) -> Bool {
        let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/bin:/bin"
        return path.split(separator: ":").contains { access("\($0)/\(program)", X_OK) == 0 }
    }

    /// Starts `arguments[0]` (looked up on the `PATH`) with the rest as its arguments.
    static func spawn(_ arguments: [String]) throws -> ChildProcess {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGPIPE] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = arguments.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var pid = pid_t()
        let status = posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, environ)
        guard status == 0 else { throw ClientError(description: "cannot start \(arguments[0]): \(status)") }
        return ChildProcess(pid: pid)
    }

    /// Runs a program to its end and throws unless it exits with status 0.
    static func run(_ arguments: [String]) throws {
        let status = try spawn(arguments).wait()
        guard status == 0 else {
            throw ClientError(description: "\(arguments.prefix(3).joined(separator: " ")) failed with status \(status)")
        }
    }

    /// Waits for the process to end and returns its wait status.
    @discardableResult
    func wait() -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return status
    }

    /// Stops the process and reaps it.
    func terminate() {
        kill(pid, SIGTERM)
        wait()
    }
}
