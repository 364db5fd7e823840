#if canImport(Glibc)
import Glibc
#endif

/// `--name value` options of the command line.
struct Options {
    private var values: [String: String] = [:]

    /// Reads `arguments` (without the program and subcommand); stops the program on a stray argument.
    init(_ arguments: ArraySlice<String>) {
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            guard argument.hasPrefix("--"), let value = iterator.next() else {
                Options.fail("expected --name value, got '\(argument)'")
            }
            values[String(argument.dropFirst(2))] = value
        }
    }

    /// The text of option `name`, else `fallback`; stops the program when it is required and absent.
    func string(_ name: String, _ fallback: String? = nil) -> String {
        guard let value = values[name] ?? fallback else { Options.fail("--\(name) is required") }
        return value
    }

    /// The text of option `name`, or nil when absent.
    func optional(_ name: String) -> String? { values[name] }

    /// A whole number of at least `minimum`.
    func int(_ name: String, _ fallback: Int, minimum: Int = 1) -> Int {
        guard let text = values[name] else { return fallback }
        guard let value = Int(text), value >= minimum else {
            Options.fail("--\(name) must be a whole number ≥ \(minimum)")
        }
        return value
    }

    /// A comma-separated list of whole numbers of at least 1 (empty when absent or `none`).
    func ints(_ name: String) -> [Int] {
        guard let text = values[name], text != "none", !text.isEmpty else { return [] }
        return text.split(separator: ",").map {
            guard let value = Int($0), value >= 1 else {
                Options.fail("--\(name): '\($0)' is not a whole number ≥ 1")
            }
            return value
        }
    }

    /// `host:port` split in two.
    func endpoint(_ name: String) -> (host: String, port: Int) {
        let text = string(name)
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]) else {
            Options.fail("--\(name) must be HOST:PORT, not '\(text)'")
        }
        return (String(text[..<colon]), port)
    }

    /// Prints `message` on stderr and exits with status 2.
    static func fail(_ message: String) -> Never {
        log("error: \(message)")
        exit(2)
    }
}

/// Prints a line on stderr, prefixed with the program's name.
func log(_ message: String) {
    writeLine("OAuthLoad: \(message)", to: 2)
}

/// Writes `line` and a newline to file descriptor `descriptor` at once, unbuffered.
func writeLine(_ line: String, to descriptor: Int32) {
    var bytes = Array(line.utf8)
    bytes.append(10)
    var offset = 0
    while offset < bytes.count {
        let written = bytes[offset...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        guard written > 0 else { return }
        offset += written
    }
}
