import TesseraHTTP
import Testing

@Suite struct IPAddressTests {
    @Test(arguments: [
        ("192.0.2.1", "192.0.2.1"), ("0.0.0.0", "0.0.0.0"), ("255.255.255.255", "255.255.255.255"),
        ("2001:0DB8:0000:0000:0000:0000:0000:0001", "2001:db8::1"), ("::1", "::1"), ("::", "::"),
        ("2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"), ("2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1"),
        ("::ffff:192.0.2.1", "::ffff:192.0.2.1"), ("::FFFF:c000:0201", "::ffff:192.0.2.1"),
        ("fe80::a:b:c:d", "fe80::a:b:c:d"),
    ])
    func descriptionIsCanonical(text: String, canonical: String) throws {
        let address = try #require(IPAddress(parsing: text))
        #expect(address.description == canonical)
        #expect(IPAddress(parsing: canonical) == address)
    }

    @Test(arguments: [
        "", "1.2.3", "1.2.3.4.5", "256.1.1.1", "1.2.3.4:80", "[::1]", "::1%eth0", "2001:db8::1::2", "example.com",
        " 1.2.3.4", "1.2.3.4\u{0}", "1.2.3.4\u{0}garbage", "01.2.3.4x",
    ])
    func garbageIsNotAnAddress(text: String) {
        #expect(IPAddress(parsing: text) == nil)
    }

    @Test func bytesMustBeFourOrSixteen() {
        #expect(IPAddress(bytes: [192, 0, 2, 1])?.description == "192.0.2.1")
        #expect(IPAddress(bytes: [UInt8](repeating: 0, count: 15) + [1])?.description == "::1")
        #expect(IPAddress(bytes: []) == nil)
        #expect(IPAddress(bytes: [1, 2, 3]) == nil)
        #expect(IPAddress(bytes: [UInt8](repeating: 0, count: 17)) == nil)
    }

    @Test func anIPv4MappedAddressUnmapsToItsIPv4Address() throws {
        let mapped = try #require(IPAddress(parsing: "::ffff:10.1.2.3"))
        #expect(mapped.embeddedIPv4 == IPAddress(parsing: "10.1.2.3"))
        #expect(mapped.unmapped.description == "10.1.2.3")
        #expect(mapped.unmapped.isIPv4)
        let compatible = try #require(IPAddress(parsing: "::10.1.2.3"))
        #expect(compatible.embeddedIPv4 == nil)
        #expect(compatible.unmapped == compatible)
        #expect(IPAddress(parsing: "10.1.2.3")?.embeddedIPv4 == nil)
    }

    @Test(arguments: [
        ("192.0.2.1", "192.0.2.1"), ("::ffff:192.0.2.1", "192.0.2.1"),
        ("2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"), ("2001:db8:1:2::", "2001:db8:1:2::/64"),
        ("2001:db8:1:2:ffff:ffff:ffff:ffff", "2001:db8:1:2::/64"), ("2001:db8:1:3::1", "2001:db8:1:3::/64"),
        ("::1", "::/64"), ("fe80::1", "fe80::/64"), ("2001:db8::1", "2001:db8::/64"),
    ])
    func rateLimitKeysAreTheIPv4AddressOrTheIPv6Slash64(text: String, key: String) throws {
        #expect(try #require(IPAddress(parsing: text)).rateLimitKey == key)
    }

    @Test func networksMatchIPv4AndItsMappedFormAlike() throws {
        let v4 = try #require(IPNetwork(parsing: "10.0.0.0/8"))
        #expect(v4.contains(try #require(IPAddress(parsing: "::ffff:10.9.8.7"))))
        #expect(!v4.contains(try #require(IPAddress(parsing: "::ffff:11.0.0.1"))))
        #expect(!v4.contains(try #require(IPAddress(parsing: "::10.9.8.7"))))
        let mapped = try #require(IPNetwork(parsing: "::ffff:10.0.0.0/104"))
        #expect(mapped.contains(try #require(IPAddress(parsing: "10.200.0.1"))))
        #expect(!mapped.contains(try #require(IPAddress(parsing: "11.0.0.1"))))
        let v6 = try #require(IPNetwork(parsing: "2001:db8::/32"))
        #expect(v6.contains(try #require(IPAddress(parsing: "2001:db8:ffff::1"))))
        #expect(!v6.contains(try #require(IPAddress(parsing: "192.0.2.1"))))
        #expect(IPNetwork(parsing: "10.0.0.0/+8") == nil)
        #expect(IPNetwork(parsing: "::/129") == nil)
        #expect(IPNetwork(parsing: "garbage/8") == nil)
    }
}
