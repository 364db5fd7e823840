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

    /// Whether `candidate` lies in this network. An IPv4 address and its IPv4-mapped IPv6 form
    /// (`::ffff:192.0.2.1`) are the same address here; otherwise addresses of the other family never match.
    public func contains(_ candidate: IPAddress) -> Bool {
        let comparable = address.isIPv4 ? candidate.unmapped : candidate.asIPv6
        guard comparable.bytes.count == address.bytes.count else { return false }
        var remaining = prefixLength
        for (mine, theirs) in zip(address.bytes, comparable.bytes) where remaining > 0 {
            let bits = min(8, remaining)
            let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
            if mine & mask != theirs & mask { return false }
            remaining -= bits
        }
        return true
    }
}
