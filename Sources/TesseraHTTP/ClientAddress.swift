/// Decides which address a request came from: the socket's peer, or, behind trusted proxies, the address they
/// say they received it from (API §1 `--trusted-proxy`).
///
/// The rule: parse the peer. When it is not in a trusted network, it is the client, and every forwarding header
/// is ignored (anyone can send them). When it is, read the hops the proxies appended (`X-Forwarded-For`, or RFC 7239
/// `Forwarded` when no `X-Forwarded-For` is present) and walk them from right to left, nearest proxy first: each hop
/// names the address the proxy to its right received the request from. The first address not in a trusted network
/// is the client. When the walk runs out (every hop trusted) or reaches a hop that is not an address (malformed,
/// `unknown`, obfuscated, a `Forwarded` element without `for=`), the answer is the last address it reached: the
/// leftmost address vouched for by the chain of trusted proxies, which is the peer itself when the nearest hop is
/// already unusable.
///
/// Headers are read as bytes, so no Unicode text can hide a separator. IPv4-mapped IPv6 addresses
/// (`::ffff:192.0.2.1`, what a dual-stack socket shows for an IPv4 peer) are read as their IPv4 address, both for
/// the trust check and in the answer.
public enum ClientAddress {
    /// One hop of a forwarding header, as read.
    enum Hop: Equatable {
        /// A numeric address (port dropped).
        case address(IPAddress)
        /// Anything else: a malformed entry, `unknown`, an obfuscated identifier, a missing `for=`.
        case opaque
    }

    /// The client's address by the rule above; nil when `peer` is absent or is not `ADDRESS:PORT` text
    /// (`192.0.2.1:5555`, `[2001:db8::1]:5555`; a bare address is accepted too).
    public static func resolve(peer: String?, headers: HTTPHeaders, trustedProxies: [IPNetwork]) -> IPAddress? {
        guard let peer, let peerAddress = node(Array(peer.utf8)[...], allowsBareIPv6: true) else { return nil }
        let isTrusted = { (address: IPAddress) in trustedProxies.contains { $0.contains(address) } }
        guard isTrusted(peerAddress) else { return peerAddress }
        var reached = peerAddress
        for hop in hops(in: headers).reversed() {
            guard case .address(let address) = hop else { return reached }
            reached = address
            guard isTrusted(address) else { return address }
        }
        return reached
    }

    /// The hops of the request's `X-Forwarded-For` fields (all of them, in order, comma-separated), or of its
    /// `Forwarded` fields when it has no `X-Forwarded-For`; leftmost first. Empty list elements are skipped
    /// (RFC 9110 §5.6.1).
    static func hops(in headers: HTTPHeaders) -> [Hop] {
        let forwardedFor = headers.values(of: "X-Forwarded-For")
        guard forwardedFor.isEmpty else {
            return forwardedFor.flatMap { Array($0.utf8).split(separator: comma, omittingEmptySubsequences: false) }
                .map(trimmed)
                .filter { !$0.isEmpty }
                .map { node($0, allowsBareIPv6: true).map(Hop.address) ?? .opaque }
        }
        return headers.values(of: "Forwarded").flatMap { forwardedHops(Array($0.utf8)[...]) }
    }

    /// Parses a node: `IPv4`, `IPv4:PORT`, `[IPv6]`, `[IPv6]:PORT`, and a bare `IPv6` when `allowsBareIPv6`
    /// (`X-Forwarded-For` writes them so; RFC 7239 requires brackets). `PORT` is 1 to 5 digits, or an obfuscated
    /// port (`_` then letters, digits, `.`, `_`, `-`) where `allowsObfuscatedPort`. The result is unmapped.
    static func node(
        _ text: ArraySlice<UInt8>, allowsBareIPv6: Bool, allowsObfuscatedPort: Bool = false
    ) -> IPAddress? {
        let host: ArraySlice<UInt8>
        var port: ArraySlice<UInt8>?
        if text.first == UInt8(ascii: "[") {
            guard let close = text.firstIndex(of: UInt8(ascii: "]")) else { return nil }
            host = text[(text.startIndex + 1)..<close]
            let rest = text[(close + 1)...]
            if let colon = rest.first {
                guard colon == UInt8(ascii: ":") else { return nil }
                port = rest.dropFirst()
            }
            guard host.contains(UInt8(ascii: ":")) else { return nil }
        } else {
            let colons = text.count { $0 == UInt8(ascii: ":") }
            if colons == 1, let colon = text.firstIndex(of: UInt8(ascii: ":")) {
                host = text[..<colon]
                port = text[(colon + 1)...]
            } else if colons == 0 || allowsBareIPv6 {
                host = text
            } else {
                return nil
            }
        }
        if let port, !isPort(port, allowsObfuscated: allowsObfuscatedPort) { return nil }
        return IPAddress(parsing: String(decoding: host, as: UTF8.self))?.unmapped
    }

    /// Whether the bytes are a port: 1 to 5 ASCII digits, or, when `allowsObfuscated`, `_` followed by ASCII
    /// letters, digits, `.`, `_` or `-` (RFC 7239 §6.3).
    private static func isPort(_ text: ArraySlice<UInt8>, allowsObfuscated: Bool) -> Bool {
        if (1...5).contains(text.count), text.allSatisfy(isDigit) { return true }
        guard allowsObfuscated, text.first == UInt8(ascii: "_"), text.count > 1 else { return false }
        return text.dropFirst().allSatisfy {
            isDigit($0) || isLetter($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-")
        }
    }

    /// The bytes without leading and trailing spaces and tabs (HTTP's optional whitespace).
    static func trimmed(_ text: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        let isWhitespace = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        guard let first = text.firstIndex(where: { !isWhitespace($0) }),
            let last = text.lastIndex(where: { !isWhitespace($0) })
        else { return text[text.endIndex...] }
        return text[first...last]
    }

    /// The list separator of both headers.
    static let comma = UInt8(ascii: ",")

    /// Whether the byte is an ASCII digit.
    static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    /// Whether the byte is an ASCII letter of either case.
    static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }
}
