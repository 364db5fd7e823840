public import TesseraLoop

/// Why an ``HTTPServer`` could not start.
public enum HTTPServerError: Error, Sendable, CustomStringConvertible {
    /// ``HTTPServer/start()`` was called on a server that was already started or shut down.
    case alreadyStarted(name: String)
    /// A loop could not bind or listen on the address (in use, not a numeric address, no permission).
    case listenFailed(name: String, host: String, port: Int, underlying: LoopError)

    /// One line for the operator.
    public var description: String {
        switch self {
        case .alreadyStarted(let name): "server \(name) was already started"
        case .listenFailed(let name, let host, let port, let underlying):
            "server \(name) cannot listen on \(host):\(port): \(underlying)"
        }
    }
}
