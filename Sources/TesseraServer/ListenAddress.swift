import TesseraHTTP

/// A `HOST:PORT` to listen on, with a numeric IPv4 or bracketed IPv6 host (`127.0.0.1:8080`, `[::1]:8081`).
public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    /// The numeric host, without brackets.
    public var host: String
    /// The TCP port; 0 asks the kernel for a free one.
    public var port: Int

    /// Creates an address from its parts.
    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses `HOST:PORT`; returns nil for anything else (names such as `localhost` included: a listener
    /// binds an address, not a name that may resolve to several).
    public init?(parsing text: String) {
        let hostPart: Substring
        let portPart: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                return nil
            }
            hostPart = text[text.index(after: text.startIndex)..<close]
            portPart = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":") else { return nil }
            hostPart = text[..<colon]
            portPart = text[text.index(after: colon)...]
        }
        guard let port = Int(portPart), (0...65535).contains(port), !portPart.hasPrefix("+"),
            IPAddress(parsing: String(hostPart)) != nil
        else { return nil }
        host = String(hostPart)
        self.port = port
    }

    /// `host:port`, with IPv6 hosts in brackets.
    public var description: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}
