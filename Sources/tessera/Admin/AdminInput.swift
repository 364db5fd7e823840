import TesseraJSON

#if canImport(Glibc)
import Glibc
#endif

/// What the admin CLI reads besides its arguments: `--body` values, key files and passwords on standard input.
enum AdminInput {
    /// The largest file or standard input accepted (the server refuses bodies over 1 MiB anyway).
    static let maxBytes = 1 << 20

    /// The JSON object of a `--body` value: the JSON text itself, or `@path` for a file holding it.
    static func body(_ argument: String) throws(AdminUsageError) -> JSONObject {
        let bytes: [UInt8]
        let origin: String
        if argument.hasPrefix("@") {
            let path = String(argument.dropFirst())
            bytes = try readFile(path)
            origin = path
        } else {
            bytes = Array(argument.utf8)
            origin = "--body"
        }
        return try parseObject(bytes, origin: origin)
    }

    /// Parses `bytes` as a JSON object, naming `origin` in the error.
    static func parseObject(_ bytes: [UInt8], origin: String) throws(AdminUsageError) -> JSONObject {
        let value: JSONValue
        do {
            value = try JSONValue(parsing: bytes)
        } catch {
            throw AdminUsageError("\(origin) is not valid JSON: \(error)")
        }
        guard case .object(let object) = value else { throw AdminUsageError("\(origin) must be a JSON object") }
        return object
    }

    /// A `--mask` value normalized to `a,b.c`: spaces around the commas are dropped, and an empty path is
    /// refused. Nil stays nil (no mask).
    static func mask(_ mask: String?) throws(AdminUsageError) -> String? {
        guard let mask else { return nil }
        let paths = mask.split(separator: ",", omittingEmptySubsequences: false).map { path in
            String(path.filter { !$0.isWhitespace })
        }
        guard !paths.contains(where: \.isEmpty) else {
            throw AdminUsageError("--mask must be comma-separated field paths, e.g. mfa.state,smsDailyQuota")
        }
        return paths.joined(separator: ",")
    }

    /// The key in a key file's text: surrounding whitespace and line ends removed; empty is refused.
    static func key(fromFileText text: String, path: String) throws(AdminUsageError) -> String {
        var key = Substring(text)
        while key.first?.isWhitespace == true { key.removeFirst() }
        while key.last?.isWhitespace == true { key.removeLast() }
        guard !key.isEmpty else { throw AdminUsageError("the key file \(path) is empty") }
        return String(key)
    }

    /// The password given on standard input: everything read, without one final line end; empty is refused.
    static func password(fromInput bytes: [UInt8]) throws(AdminUsageError) -> String {
        var bytes = bytes[...]
        if bytes.last == UInt8(ascii: "\n") { bytes = bytes.dropLast() }
        if bytes.last == UInt8(ascii: "\r") { bytes = bytes.dropLast() }
        guard !bytes.isEmpty else { throw AdminUsageError("--password-stdin: no password on standard input") }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Reads a whole regular file of at most ``maxBytes``.
    static func readFile(_ path: String) throws(AdminUsageError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw AdminUsageError("cannot read \(path): \(systemMessage())") }
        defer { close(descriptor) }
        return try readAll(descriptor, name: path)
    }

    /// Reads standard input to its end. When it is a terminal, prompts on stderr and turns echo off meanwhile.
    static func readStandardInput(prompt: String) throws(AdminUsageError) -> [UInt8] {
        guard isatty(0) == 1 else { return try readAll(0, name: "standard input") }
        FileHandleStandardError.write(prompt)
        var original = termios()
        let canSilence = tcgetattr(0, &original) == 0
        if canSilence {
            var silent = original
            silent.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(0, TCSANOW, &silent)
        }
        defer {
            if canSilence { tcsetattr(0, TCSANOW, &original) }
            FileHandleStandardError.write("\n")
        }
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while read(0, &byte, 1) == 1, byte != UInt8(ascii: "\n") {
            line.append(byte)
            guard line.count <= maxBytes else { throw AdminUsageError("standard input is larger than 1 MiB") }
        }
        return line
    }

    private static func readAll(_ descriptor: Int32, name: String) throws(AdminUsageError) -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw AdminUsageError("cannot read \(name): \(systemMessage())") }
            if count == 0 { return bytes }
            bytes.append(contentsOf: buffer[0..<count])
            guard bytes.count <= maxBytes else { throw AdminUsageError("\(name) is larger than 1 MiB") }
        }
    }

    private static func systemMessage() -> String {
        String(cString: strerror(errno))
    }
}
