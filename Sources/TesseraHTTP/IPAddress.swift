#if canImport(Glibc)
import Glibc
#endif

/// A numeric IPv4 or IPv6 address as bytes (4 or 16).
public struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    /// The address in network byte order: 4 bytes for IPv4, 16 for IPv6.
    public let bytes: [UInt8]

    /// Parses dotted IPv4 or RFC 4291 IPv6 text (no brackets, no zone, no port); nil when it is neither.
    public init?(parsing text: String) {
        guard !text.utf8.contains(0) else { return nil }
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            bytes = withUnsafeBytes(of: &v4) { Array($0) }
        } else if inet_pton(AF_INET6, text, &v6) == 1 {
            bytes = withUnsafeBytes(of: &v6) { Array($0) }
        } else {
            return nil
        }
    }

    /// The address of these bytes in network byte order; nil unless there are 4 (IPv4) or 16 (IPv6).
    public init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.init(checkedBytes: bytes)
    }

    /// The address of 4 or 16 bytes, which the caller has made sure of.
    private init(checkedBytes bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Whether this is an IPv4 address (4 bytes).
    public var isIPv4: Bool { bytes.count == 4 }

    /// The IPv4 address inside an IPv4-mapped IPv6 address (`::ffff:192.0.2.1` → `192.0.2.1`), which is how a
    /// dual-stack socket names an IPv4 peer; nil for any other address.
    public var embeddedIPv4: IPAddress? {
        guard bytes.count == 16, bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF else {
            return nil
        }
        return IPAddress(checkedBytes: Array(bytes[12...]))
    }

    /// The address with an IPv4-mapped IPv6 address replaced by its IPv4 address; any other address unchanged.
    public var unmapped: IPAddress { embeddedIPv4 ?? self }

    /// The address as IPv6: an IPv4 address as its IPv4-mapped IPv6 address, an IPv6 address unchanged.
    var asIPv6: IPAddress {
        isIPv4 ? IPAddress(checkedBytes: [UInt8](repeating: 0, count: 10) + [0xFF, 0xFF] + bytes) : self
    }

    /// The canonical text: dotted decimal for IPv4, RFC 5952 for IPv6 (lower case, the longest run of zero groups
    /// shortened to `::`, `::ffff:192.0.2.1` for an IPv4-mapped address), as `inet_ntop` writes it. No port, no
    /// brackets.
    public var description: String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        // Cannot fail: the family matches the number of bytes and the buffer holds the longest text.
        _ = bytes.withUnsafeBytes { address in
            inet_ntop(isIPv4 ? AF_INET : AF_INET6, address.baseAddress, &text, socklen_t(text.count))
        }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The key under which requests from this address share a rate limit: the address itself for IPv4 (an
    /// IPv4-mapped IPv6 address counts as its IPv4 address), and the /64 network for any other IPv6 address
    /// (`2001:db8:1:2::/64`), because one subscriber usually holds a whole /64 and could otherwise rotate
    /// through its addresses.
    public var rateLimitKey: String {
        let address = unmapped
        guard !address.isIPv4 else { return address.description }
        let network = IPAddress(checkedBytes: Array(address.bytes[0..<8]) + [UInt8](repeating: 0, count: 8))
        return "\(network.description)/64"
    }
}
