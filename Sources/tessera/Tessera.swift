import ArgumentParser

/// The `tessera` command: `serve`, `migrate`, `janitor`, `reseal`, `admin` and `factor`.
@main
struct Tessera: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tessera",
        abstract: "Tessera, a self-hosted multi-tenant authentication server.",
        subcommands: [
            Serve.self, Migrate.self, JanitorCommand.self, ResealCommand.self, Admin.self, FactorCommand.self,
        ]
    )

    /// Runs the command line; any error other than a help or version request is one line on stderr and
    /// exit status 2 (API §1), never a stack trace or a usage dump.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let exit as ExitCode {
            Self.exit(withError: exit)
        } catch {
            if exitCode(for: error) == .success { Self.exit(withError: error) }
            let message =
                fullMessage(for: error)
                .split(whereSeparator: \.isNewline)
                .first { $0.contains { !$0.isWhitespace } }
                .map(String.init) ?? "\(error)"
            let line = message.hasPrefix("Error: ") ? String(message.dropFirst("Error: ".count)) : message
            FileHandleStandardError.write("tessera: \(line)\n")
            Self.exit(withError: ExitCode(2))
        }
    }
}
