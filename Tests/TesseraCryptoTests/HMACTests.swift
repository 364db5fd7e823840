import TesseraCrypto
import Testing

@Suite("HMAC")
struct HMACTests {
    struct RFC4231Case: Sendable {
        let number: Int
        let key: [UInt8]
        let data: [UInt8]
        let sha256: String
        let sha512: String
    }

    static let rfc4231: [RFC4231Case] = [
        RFC4231Case(
            number: 1, key: Array(repeating: 0x0B, count: 20), data: Array("Hi There".utf8),
            sha256: "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7",
            sha512: "87aa7cdea5ef619d4ff0b4241a1d6cb02379f4e2ce4ec2787ad0b30545e17cde"
                + "daa833b7d6b8a702038b274eaea3f4e4be9d914eeb61f1702e696c203a126854"
        ),
        RFC4231Case(
            number: 2, key: Array("Jefe".utf8), data: Array("what do ya want for nothing?".utf8),
            sha256: "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
            sha512: "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea250554"
                + "9758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737"
        ),
        RFC4231Case(
            number: 3, key: Array(repeating: 0xAA, count: 20), data: Array(repeating: 0xDD, count: 50),
            sha256: "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe",
            sha512: "fa73b0089d56a284efb0f0756c890be9b1b5dbdd8ee81a3655f83e33b2279d39"
                + "bf3e848279a722c806b485a47e67c807b946a337bee8942674278859e13292fb"
        ),
        RFC4231Case(
            number: 4, key: Array(1...25), data: Array(repeating: 0xCD, count: 50),
            sha256: "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b",
            sha512: "b0ba465637458c6990e5a8c5f61d4af7e576d97ff94b872de76f8050361ee3db"
                + "a91ca5c11aa25eb4d679275cc5788063a5f19741120c4f2de2adebeb10a298dd"
        ),
        RFC4231Case(
            number: 6, key: Array(repeating: 0xAA, count: 131),
            data: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
            sha256: "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54",
            sha512: "80b24263c7c1a3ebb71493c1dd7be8b49b46d1f41b4aeec1121b013783f8f352"
                + "6b56d037e05f2598bd0fd2215d6a1e5295e64f73f63f0aec8b915a985d786598"
        ),
        RFC4231Case(
            number: 7, key: Array(repeating: 0xAA, count: 131),
            data: Array(
                ("This is a test using a larger than block-size key and a larger than block-size data. "
                    + "The key needs to be hashed before being used by the HMAC algorithm.").utf8
            ),
            sha256: "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2",
            sha512: "e37b6a775dc87dbaa4dfa9f96e5e3ffddebd71f8867289865df5a32d20cdc944"
                + "b6022cac3c4982b10d5eeb55c3e4de15134676fb6de0446065c97440fa8c6a58"
        ),
    ]

    @Test(arguments: rfc4231)
    func rfc4231HMACSHA2(testCase: RFC4231Case) throws {
        let sha256 = try HMAC.authenticationCode(for: testCase.data, key: testCase.key, algorithm: .sha256)
        let sha512 = try HMAC.authenticationCode(for: testCase.data, key: testCase.key, algorithm: .sha512)
        #expect(hexString(sha256) == testCase.sha256, "RFC 4231 case \(testCase.number), SHA-256")
        #expect(hexString(sha512) == testCase.sha512, "RFC 4231 case \(testCase.number), SHA-512")
    }

    @Test func rfc2202HMACSHA1() throws {
        let cases: [([UInt8], String, String)] = [
            (Array(repeating: 0x0B, count: 20), "Hi There", "b617318655057264e28bc0b6fb378c8ef146be00"),
            (Array("Jefe".utf8), "what do ya want for nothing?", "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79"),
            (Array(repeating: 0x0C, count: 20), "Test With Truncation", "4c1a03424b55e07fe7f27be1d58bb9324a9a5a04"),
            (
                Array(repeating: 0xAA, count: 80), "Test Using Larger Than Block-Size Key - Hash Key First",
                "aa4ae5e15272d00e95705637ce8a3b55ed402112"
            ),
            (
                Array(repeating: 0xAA, count: 80),
                "Test Using Larger Than Block-Size Key and Larger Than One Block-Size Data",
                "e8e99d0f45237d786d6bbaa7965c7808bbff1a91"
            ),
        ]
        for (key, data, expected) in cases {
            #expect(hexString(try HMAC.authenticationCode(for: data, key: key, algorithm: .sha1)) == expected)
        }
        let binaryCases: [([UInt8], [UInt8], String)] = [
            (
                Array(repeating: 0xAA, count: 20), Array(repeating: 0xDD, count: 50),
                "125d7342b9ac11cd91a39af48aa17b4f63f175d3"
            ),
            (Array(1...25), Array(repeating: 0xCD, count: 50), "4c9007f4026250c6bc8414f9bf50c86c2d7235da"),
        ]
        for (key, data, expected) in binaryCases {
            #expect(hexString(try HMAC.authenticationCode(for: data, key: key, algorithm: .sha1)) == expected)
        }
    }

    @Test func emptyKeyAndEmptyMessageWork() throws {
        let code = try HMAC.authenticationCode(for: [], key: [], algorithm: .sha256)
        #expect(hexString(code) == "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad")
    }

    @Test func verificationIsExact() throws {
        let key = Array("key".utf8)
        let message = Array("message".utf8)
        let code = try HMAC.authenticationCode(for: message, key: key, algorithm: .sha256)
        #expect(HMAC.isValidAuthenticationCode(code, for: message, key: key, algorithm: .sha256))
        var flipped = code
        flipped[5] ^= 0x01
        #expect(!HMAC.isValidAuthenticationCode(flipped, for: message, key: key, algorithm: .sha256))
        #expect(!HMAC.isValidAuthenticationCode(Array(code.prefix(16)), for: message, key: key, algorithm: .sha256))
        #expect(!HMAC.isValidAuthenticationCode(code, for: message, key: key, algorithm: .sha512))
    }
}
