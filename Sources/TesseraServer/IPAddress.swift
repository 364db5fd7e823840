#if canImport(Glibc)
import Glibc
#endif

/// A numeric IPv4 or IPv6 address as bytes (4 or 16).
public struct IPAddress: Sendable, Hashable {
    /// The address in network byte order.
    public let bytes: [UInt8]

    /// Parses dotted IPv4 or RFC 4291 IPv6 text (no brackets, no zone); nil when it is neither.
    public init?(parsing text: String) {
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
}

/// An IP network in CIDR notation (`10.0.0.0/8`, `fd00::/8`); a bare address is a network of one.
public struct IPNetwork: Sendable, Hashable, CustomStringConvertible {
    /// The network's first address.
    public let address: IPAddress
    /// How many leading bits must match.
    public let prefixLength: Int
    /// The text it was parsed from.
    public let description: String

    /// Parses `ADDRESS/PREFIX` or a bare address; nil when the address or the prefix is invalid.
    public init?(parsing text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count <= 2, let address = IPAddress(parsing: String(parts[0])) else { return nil }
        let maximum = address.bytes.count * 8
        if parts.count == 2 {
            guard let length = Int(parts[1]), (0...maximum).contains(length), !parts[1].hasPrefix("+") else {
                return nil
            }
            prefixLength = length
        } else {
            prefixLength = maximum
        }
        self.address = address
        description = text
    }

    /// Whether `candidate` lies in this network (always false across address families).
    public func contains(_ candidate: IPAddress) -> Bool {
        guard candidate.bytes.count == address.bytes.count else { return false }
        var remaining = prefixLength
        for (mine, theirs) in zip(address.bytes, candidate.bytes) where remaining > 0 {
            let bits = min(8, remaining)
            let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
            if mine & mask != theirs & mask { return false }
            remaining -= bits
        }
        return true
    }
}
