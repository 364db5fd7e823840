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

    /// Whether the peer refused the connection (nothing listens on that port).
    public var isConnectionRefused: Bool { code == UV_ECONNREFUSED.rawValue }

    /// Whether the operation was cancelled (``TCPConnector/cancel()``).
    public var isCancelled: Bool { code == tessera_uv_ecanceled() || code == UV_EAI_CANCELED.rawValue }

    /// Whether a host name could not be resolved (`UV_EAI_*`, except a cancellation).
    public var isNameResolutionFailure: Bool {
        let resolutionErrors = [
            UV_EAI_ADDRFAMILY, UV_EAI_AGAIN, UV_EAI_BADFLAGS, UV_EAI_BADHINTS, UV_EAI_FAIL, UV_EAI_FAMILY,
            UV_EAI_MEMORY, UV_EAI_NODATA, UV_EAI_NONAME, UV_EAI_OVERFLOW, UV_EAI_PROTOCOL, UV_EAI_SERVICE,
            UV_EAI_SOCKTYPE,
        ]
        return resolutionErrors.contains { $0.rawValue == code }
    }

    /// libuv's message for the code alone, e.g. `connection refused`.
    public var message: String { String(cString: uv_strerror(code)) }

    /// `operation: libuv's message`, one line.
    public var description: String {
        "\(operation): \(message)"
    }

    /// The one reading of a libuv return code, which every call in this module goes through (``check(_:_:)``,
    /// ``require(_:_:)``, or this): a `LoopError` naming `operation` when the code is negative, nil when the call
    /// succeeded.
    static func failure(_ code: Int32, _ operation: @autoclosure () -> String) -> LoopError? {
        code < 0 ? LoopError(operation(), code: code) : nil
    }

    /// Throws a `LoopError` when a libuv return code is negative.
    static func check(_ code: Int32, _ operation: @autoclosure () -> String) throws(LoopError) {
        if let error = failure(code, operation()) { throw error }
    }

    /// Stops the process when a call that fails only on a programming error (an invalid argument, a handle already
    /// closing) failed: carrying on would leave a timer that never fires or a handle that is never closed.
    static func require(_ code: Int32, _ operation: @autoclosure () -> String) {
        if let error = failure(code, operation()) { preconditionFailure("\(error)") }
    }
}
