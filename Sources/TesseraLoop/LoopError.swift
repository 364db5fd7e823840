internal import CLibUV

/// A libuv call that failed, with the operation that was attempted and libuv's error code.
public struct LoopError: Error, CustomStringConvertible, Sendable {
    /// What Tessera was doing, e.g. `bind 127.0.0.1:8080`.
    public let operation: String
    /// The negative libuv error code (`UV_EADDRINUSE`, …).
    public let code: Int32

    /// Creates an error for a failed libuv call.
    public init(_ operation: String, code: Int32) {
        self.operation = operation
        self.code = code
    }

    /// Whether the address was already in use (a second server on the same port).
    public var isAddressInUse: Bool { code == tessera_uv_eaddrinuse() }

    /// `operation: libuv's message`, one line.
    public var description: String {
        "\(operation): \(String(cString: uv_strerror(code)))"
    }

    /// Throws a `LoopError` when a libuv return code is negative.
    static func check(_ code: Int32, _ operation: @autoclosure () -> String) throws(LoopError) {
        if code < 0 { throw LoopError(operation(), code: code) }
    }
}
