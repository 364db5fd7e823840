import TesseraHTTP
import Testing

/// The client address rule of `--trusted-proxy`: the peer unless it is a trusted proxy, then the forwarding
/// headers walked from right to left.
@Suite struct ClientAddressTests {
    static let proxies = ["10.0.0.0/8", "::1", "fd00::/8"].compactMap(IPNetwork.init(parsing:))

    /// The resolved address as text; nil when there is none.
    private func resolve(
        peer: String?, _ fields: [(String, String)] = [], trusted: [IPNetwork] = proxies
    ) -> String? {
        var headers = HTTPHeaders()
        for (name, value) in fields { headers.add(name: name, value: value) }
        return ClientAddress.resolve(peer: peer, headers: headers, trustedProxies: trusted)?.description
    }

    @Test func anUntrustedPeerIsTheClientWhateverItsHeadersSay() {
        let spoofed = [("X-Forwarded-For", "203.0.113.7"), ("Forwarded", "for=198.51.100.1")]
        #expect(resolve(peer: "192.0.2.1:5555", spoofed) == "192.0.2.1")
        #expect(resolve(peer: "[2001:db8::1]:443", spoofed) == "2001:db8::1")
        #expect(resolve(peer: "192.0.2.1:5555", [("X-Forwarded-For", "10.0.0.1")]) == "192.0.2.1")
        #expect(resolve(peer: "10.0.0.1:5555", spoofed, trusted: []) == "10.0.0.1")
    }

    @Test func aTrustedPeerWithoutHeadersIsTheClient() {
        #expect(resolve(peer: "10.1.2.3:5555") == "10.1.2.3")
        #expect(resolve(peer: "[::1]:5555", [("X-Forwarded-For", "")]) == "::1")
        #expect(resolve(peer: "[::1]:5555", [("X-Forwarded-For", " , ,")]) == "::1")
    }

    @Test func oneTrustedHopNamesTheClient() {
        #expect(resolve(peer: "10.0.0.1:5555", [("X-Forwarded-For", "203.0.113.7")]) == "203.0.113.7")
        #expect(resolve(peer: "10.0.0.1:5555", [("x-forwarded-for", " 203.0.113.7 ")]) == "203.0.113.7")
        #expect(resolve(peer: "10.0.0.1:5555", [("Forwarded", "for=203.0.113.7")]) == "203.0.113.7")
    }

    @Test func manyHopsAreWalkedFromTheRightSkippingTrustedProxies() {
        let chain = "198.51.100.99, 203.0.113.7, 10.0.0.3, 10.0.0.2"
        #expect(resolve(peer: "10.0.0.1:5555", [("X-Forwarded-For", chain)]) == "203.0.113.7")
        let split = [("X-Forwarded-For", "198.51.100.99, 203.0.113.7"), ("X-Forwarded-For", "10.0.0.3,10.0.0.2")]
        #expect(resolve(peer: "10.0.0.1:5555", split) == "203.0.113.7")
        let forwarded = [("Forwarded", "for=198.51.100.99, for=203.0.113.7"), ("Forwarded", "for=10.0.0.3")]
        #expect(resolve(peer: "10.0.0.1:5555", forwarded) == "203.0.113.7")
    }

    @Test func whenEveryHopIsTrustedTheLeftmostIsTheClient() {
        #expect(resolve(peer: "10.0.0.1:5555", [("X-Forwarded-For", "10.0.0.9, 10.0.0.3, 10.0.0.2")]) == "10.0.0.9")
        let forwarded = [("Forwarded", "for=10.0.0.9;proto=https, for=\"[fd00::2]\"")]
        #expect(resolve(peer: "[::1]:5555", forwarded) == "10.0.0.9")
    }

    @Test func aBadHopStopsTheWalkAtTheLastAddressReached() {
        let malformed = [("X-Forwarded-For", "203.0.113.7, garbage, 10.0.0.2")]
        #expect(resolve(peer: "10.0.0.1:5555", malformed) == "10.0.0.2")
        #expect(resolve(peer: "10.0.0.1:5555", [("X-Forwarded-For", "203.0.113.7, unknown")]) == "10.0.0.1")
        #expect(resolve(peer: "10.0.0.1:5555", [("X-Forwarded-For", "203.0.113.7, 10.0.0.2:")]) == "10.0.0.1")
        #expect(resolve(peer: "10.0.0.1:5555", [("Forwarded", "for=203.0.113.7, for=unknown")]) == "10.0.0.1")
        #expect(
            resolve(peer: "10.0.0.1:5555", [("Forwarded", "for=203.0.113.7, for=_hidden, for=10.0.0.2")])
                == "10.0.0.2")
        #expect(resolve(peer: "10.0.0.1:5555", [("Forwarded", "for=203.0.113.7, proto=https")]) == "10.0.0.1")
    }

    @Test func anUntrustedHopBeyondABadOneIsNeverReached() {
        #expect(resolve(peer: "10.0.0.1:5555", [("X-Forwarded-For", "203.0.113.7, 1.2.3.4.5")]) == "10.0.0.1")
    }

    @Test func ipv6WorksInBothHeaders() {
        #expect(resolve(peer: "[::1]:5555", [("X-Forwarded-For", "2001:db8::7")]) == "2001:db8::7")
        #expect(resolve(peer: "[::1]:5555", [("X-Forwarded-For", "[2001:db8::7]:4711, fd00::2")]) == "2001:db8::7")
        #expect(resolve(peer: "[::1]:5555", [("X-Forwarded-For", "[2001:DB8:0::7]")]) == "2001:db8::7")
        #expect(resolve(peer: "[::1]:5555", [("Forwarded", "for=\"[2001:db8:cafe::17]:4711\"")]) == "2001:db8:cafe::17")
        #expect(resolve(peer: "[::1]:5555", [("Forwarded", "for=\"[2001:db8::7]\"")]) == "2001:db8::7")
        #expect(resolve(peer: "10.0.0.1:80", [("X-Forwarded-For", "::ffff:203.0.113.7")]) == "203.0.113.7")
    }

    @Test func ipv4WithAPortIsReadInBothHeaders() {
        #expect(resolve(peer: "10.0.0.1:80", [("X-Forwarded-For", "203.0.113.7:51234")]) == "203.0.113.7")
        #expect(resolve(peer: "10.0.0.1:80", [("Forwarded", "for=\"203.0.113.7:51234\"")]) == "203.0.113.7")
    }

    @Test func xForwardedForTakesPrecedenceOverForwarded() {
        let both = [("Forwarded", "for=198.51.100.1"), ("X-Forwarded-For", "203.0.113.7")]
        #expect(resolve(peer: "10.0.0.1:80", both) == "203.0.113.7")
    }

    @Test(arguments: [
        // RFC 7239 §4 and §7.4 examples, parameter names in any case, whitespace, other parameters, escapes.
        ("for=\"_gazonk\"", "10.0.0.1"),
        ("For=\"[2001:db8:cafe::17]:4711\"", "2001:db8:cafe::17"),
        ("for=192.0.2.60;proto=http;by=203.0.113.43", "192.0.2.60"),
        ("for=192.0.2.43, for=198.51.100.17", "198.51.100.17"),
        ("proto=https;FOR=192.0.2.60", "192.0.2.60"),
        ("for=192.0.2.60 ; proto=http", "192.0.2.60"),
        ("for=192.0.2.60;;proto=http", "192.0.2.60"),
        ("for=\"\\1\\9\\2.0.2.60\"", "192.0.2.60"),
        ("for=\"[2001:db8::1]:_port\"", "2001:db8::1"),
        ("for=\"192.0.2.60:_a.b-c_d\"", "192.0.2.60"),
        ("for=\"192.0.2.60\";by=\"a;b,c\"", "192.0.2.60"),
        ("for=192.0.2.43,,for=198.51.100.17,", "198.51.100.17"),
        // Not an address: the walk stops at the trusted peer.
        ("for=unknown", "10.0.0.1"),
        ("for=_hidden", "10.0.0.1"),
        ("for=\"unknown:4711\"", "10.0.0.1"),
        ("for=[2001:db8::1]", "10.0.0.1"),
        ("for=2001:db8::1", "10.0.0.1"),
        ("for=\"2001:db8::1\"", "10.0.0.1"),
        ("for=192.0.2.60:4711", "10.0.0.1"),
        ("for=\"192.0.2.60:port\"", "10.0.0.1"),
        ("for=\"192.0.2.60:123456\"", "10.0.0.1"),
        ("for=\"192.0.2.60:_\"", "10.0.0.1"),
        ("for=\"192.0.2.60", "10.0.0.1"),
        ("for=\"192.0.2.60\"x", "10.0.0.1"),
        ("for=\"192.0.2.60\\\"", "10.0.0.1"),
        ("for=192.0.2.60;for=192.0.2.61", "10.0.0.1"),
        ("for", "10.0.0.1"),
        ("=192.0.2.60", "10.0.0.1"),
        ("for=", "10.0.0.1"),
        ("f@r=192.0.2.60", "10.0.0.1"),
        ("by=203.0.113.43", "10.0.0.1"),
        ("for=\"192.0.2.60,198.51.100.1\"", "10.0.0.1"),
        ("garbage", "10.0.0.1"),
    ])
    func forwardedGrammar(value: String, expected: String) {
        #expect(resolve(peer: "10.0.0.1:5555", [("Forwarded", value)]) == expected)
    }

    @Test func anUnterminatedQuoteSpoilsOnlyItsOwnField() {
        let fields = [("Forwarded", "for=198.51.100.1, for=\"203.0.113.7"), ("Forwarded", "for=10.0.0.2")]
        #expect(resolve(peer: "10.0.0.1:5555", fields) == "10.0.0.2")
    }

    @Test(arguments: [
        "203.0.113.7 10.0.0.2", "203.0.113.7;10.0.0.2", "10.0.0.2\u{0}", "::1::2", "[2001:db8::1", "[2001:db8::1]x",
        "[2001:db8::1]:", "[192.0.2.1]:80", "192.0.2.1:80:80", "example.com", "1.2.3.4/32", "1.2.3.4:-1",
    ])
    func garbageInXForwardedForStopsTheWalk(entry: String) {
        #expect(resolve(peer: "10.0.0.1:5555", [("X-Forwarded-For", "198.51.100.1, " + entry)]) == "10.0.0.1")
    }

    @Test func unicodeCannotHideTheSeparatorTheProxyAppended() {
        // U+0600 is a prepended concatenation mark: as Characters, it would swallow the comma after it.
        let value = "198.51.100.1\u{0600}, 203.0.113.7"
        #expect(resolve(peer: "10.0.0.1:5555", [("X-Forwarded-For", value)]) == "203.0.113.7")
        #expect(resolve(peer: "10.0.0.1:5555", [("Forwarded", "for=x\u{0600}, for=203.0.113.7")]) == "203.0.113.7")
    }

    @Test func aMappedPeerIsReadAsIPv4() {
        #expect(resolve(peer: "[::ffff:10.0.0.1]:5555", [("X-Forwarded-For", "203.0.113.7")]) == "203.0.113.7")
        #expect(resolve(peer: "[::ffff:192.0.2.1]:5555") == "192.0.2.1")
    }

    @Test(
        arguments: [nil, "", "garbage", "192.0.2.1:port", "[::1", "[::1]:x", "192.0.2.1:", "[192.0.2.1]:80"]
            as [String?])
    func anUnreadablePeerHasNoAddress(peer: String?) {
        #expect(resolve(peer: peer, [("X-Forwarded-For", "203.0.113.7")]) == nil)
    }

    @Test func aBarePeerAddressIsAccepted() {
        #expect(resolve(peer: "192.0.2.1") == "192.0.2.1")
        #expect(resolve(peer: "2001:db8::1") == "2001:db8::1")
        #expect(resolve(peer: "[2001:db8::1]") == "2001:db8::1")
    }
}
