import ArgumentParser

/// The options every `tessera admin` command takes. The admin key never comes from an option, so it stays out of
/// shell history and `ps`: it comes from `TESSERA_ADMIN_KEY` or from the file named by `--key-file`.
struct AdminOptions: ParsableArguments {
    @Option(help: "Admin listener URL (TESSERA_ADMIN_URL; default http://127.0.0.1:8081).")
    var url: String?

    @Option(help: "File holding the admin key (default: the TESSERA_ADMIN_KEY environment variable).")
    var keyFile: String?

    @Flag(help: "Print the JSON-RPC result as pretty JSON, for scripts.")
    var json = false

    @Option(help: "Seconds the whole call may take (default 10).")
    var timeout: Double = 10

    func validate() throws {
        guard timeout.isFinite, timeout > 0, timeout <= 3600 else {
            throw ValidationError("--timeout must be a number of seconds above 0 and at most 3600")
        }
    }
}
