import FoundationEssentials
import TesseraCrypto
import Testing

@Suite("ES256 keys, signatures and JWKs")
struct ES256Tests {
    /// The P-256 group order n, big-endian.
    static let order = hexBytes("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551")

    /// The signature with `s` replaced by `n − s`: the other valid encoding of the same signature.
    static func twin(of signature: [UInt8]) -> [UInt8] {
        var negated = [UInt8](repeating: 0, count: 32)
        var borrow = 0
        for index in stride(from: 31, through: 0, by: -1) {
            var difference = Int(order[index]) - Int(signature[32 + index]) - borrow
            borrow = difference < 0 ? 1 : 0
            if difference < 0 { difference += 256 }
            negated[index] = UInt8(difference)
        }
        return Array(signature.prefix(32)) + negated
    }

    @Test func signAndVerifyRoundTrip() throws {
        let key = try ES256PrivateKey.generate()
        let message = Array("header.payload".utf8)
        let signature = try key.signature(for: message)
        #expect(signature.count == 64)
        #expect(key.publicKey.isValidSignature(signature, for: message))
        #expect(key.publicKey.isValidSignature(try key.signature(for: "header.payload"), for: "header.payload"))
        #expect(!(try ES256PrivateKey.generate()).publicKey.isValidSignature(signature, for: message))
    }

    @Test func anyFlippedBitIsRefused() throws {
        let key = try ES256PrivateKey.generate()
        let message = Array("eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiIxIn0".utf8)
        let signature = try key.signature(for: message)
        for index in signature.indices {
            var changed = signature
            changed[index] ^= 1 << UInt8(index % 8)
            #expect(!key.publicKey.isValidSignature(changed, for: message), "signature byte \(index)")
        }
        for index in message.indices {
            var changed = message
            changed[index] ^= 0x01
            #expect(!key.publicKey.isValidSignature(signature, for: changed), "message byte \(index)")
        }
    }

    @Test func signaturesHaveLowSAndHighSIsRefusedByDefault() throws {
        let key = try ES256PrivateKey.generate()
        for number in 0..<16 {
            let message = Array("message \(number)".utf8)
            let signature = try key.signature(for: message)
            let twin = Self.twin(of: signature)
            #expect(!key.publicKey.isValidSignature(twin, for: message))
            #expect(key.publicKey.isValidSignature(twin, for: message, allowHighS: true))
        }
    }

    @Test func rfc7515AppendixA3() throws {
        let jwk = JWK(
            kty: "EC", crv: "P-256", x: "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
            y: "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"
        )
        let key = try ES256PublicKey(jwk: jwk)
        let signingInput =
            "eyJhbGciOiJFUzI1NiJ9"
            + ".eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ"
        let signature = try Base64URL.decode(
            "DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSApmWQxfKTUJqPP3-Kg6NU1Q"
        )
        // The RFC's signature has a high s: valid ECDSA, refused by the strict default, accepted on request.
        #expect(key.isValidSignature(signature, for: signingInput, allowHighS: true))
        #expect(!key.isValidSignature(signature, for: signingInput))
        #expect(key.isValidSignature(Self.twin(of: signature), for: signingInput))
        #expect(!key.isValidSignature(signature, for: signingInput + " ", allowHighS: true))
    }

    @Test func malformedSignaturesAreRefused() throws {
        let key = try ES256PrivateKey.generate()
        let message = Array("message".utf8)
        let signature = try key.signature(for: message)
        let zero = [UInt8](repeating: 0, count: 32)
        let malformed: [[UInt8]] = [
            [],
            Array(signature.prefix(63)),
            signature + [0],
            zero + Array(signature.suffix(32)),
            Array(signature.prefix(32)) + zero,
            Self.order + Array(signature.suffix(32)),
            Array(signature.prefix(32)) + Self.order,
            [UInt8](repeating: 0xFF, count: 64),
            [0x30, 0x44, 0x02, 0x20] + Array(signature.prefix(32)) + [0x02, 0x20] + Array(signature.suffix(32)),
        ]
        for candidate in malformed {
            #expect(!key.publicKey.isValidSignature(candidate, for: message, allowHighS: true))
        }
    }

    @Test func jwkHasTheRightFieldsAndDecodesBack() throws {
        let key = try ES256PrivateKey.generate().publicKey
        let jwk = key.jwk()
        #expect(jwk.kty == "EC")
        #expect(jwk.crv == "P-256")
        #expect(jwk.use == "sig")
        #expect(jwk.alg == "ES256")
        #expect(jwk.kid == key.thumbprint)
        #expect(try Base64URL.decode(jwk.x ?? "") == key.x)
        #expect(try Base64URL.decode(jwk.y ?? "") == key.y)
        #expect(key.jwk(kid: "2026-01").kid == "2026-01")

        let json = try JSONEncoder().encode(jwk)
        let object = String(decoding: json, as: UTF8.self)
        for member in [#""kty":"EC""#, #""crv":"P-256""#, #""use":"sig""#, #""alg":"ES256""#, #""kid":"#] {
            #expect(object.contains(member))
        }
        #expect(!object.contains(#""d""#))
        let decoded = try ES256PublicKey(jwk: JSONDecoder().decode(JWK.self, from: json))
        #expect(decoded == key)
        #expect(decoded.thumbprint == key.thumbprint)
    }

    @Test func thumbprintMatchesRFC9449Example() throws {
        let key = try ES256PublicKey(
            jwk: JWK(
                kty: "EC", crv: "P-256", x: "l8tFrhx-34tV3hRICRDY9zCkDlpBhF42UQUfWVAWBFs",
                y: "9VE4jf_Ok_o64zbTTlcuNJajHmt6v9TDVrU0CdvGRDA"
            )
        )
        #expect(key.thumbprint == "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I")
    }

    @Test func invalidJWKsAreRefused() throws {
        let valid = try ES256PrivateKey.generate().publicKey.jwk()
        var wrongType = valid
        wrongType.kty = "RSA"
        var wrongCurve = valid
        wrongCurve.crv = "P-384"
        var wrongAlgorithm = valid
        wrongAlgorithm.alg = "HS256"
        var wrongUse = valid
        wrongUse.use = "enc"
        var missingY = valid
        missingY.y = nil
        var shortX = valid
        shortX.x = Base64URL.encode([1, 2, 3])
        var badBase64 = valid
        badBase64.x = "not base64url!"
        var offCurve = valid
        var y = try Base64URL.decode(valid.y ?? "")
        y[31] ^= 0x01
        offCurve.y = Base64URL.encode(y)
        for jwk in [wrongType, wrongCurve, wrongAlgorithm, wrongUse, missingY, shortX, badBase64, offCurve] {
            #expect(throws: CryptoError.self) { try ES256PublicKey(jwk: jwk) }
        }
        let zero = [UInt8](repeating: 0, count: 32)
        #expect(throws: CryptoError.self) { try ES256PublicKey(x: zero, y: zero) }
        #expect(throws: CryptoError.self) { try ES256PublicKey(x: zero + [0], y: zero) }
    }

    @Test func pemRoundTrip() throws {
        let key = try ES256PrivateKey.generate()
        let pem = try key.pemRepresentation()
        #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----\n"))
        #expect(pem.hasSuffix("-----END PRIVATE KEY-----\n"))
        let restored = try ES256PrivateKey.fromPEM(pem)
        #expect(restored.publicKey == key.publicKey)
        let message = Array("signed after a restart".utf8)
        #expect(key.publicKey.isValidSignature(try restored.signature(for: message), for: message))
        #expect(try restored.pemRepresentation() == pem)
    }

    @Test func sec1PEMIsAccepted() throws {
        let key = try ES256PrivateKey.fromPEM(TestKeys.sec1P256)
        #expect(key.publicKey.x == hexBytes("df98660f2fcb8998f645633a20028fdf51f0ad49b5e97005333b368a97973ff9"))
        #expect(key.publicKey.y == hexBytes("1fce81a922ab5dfb24ea77f25da4eaadf2e78b54a71c089b4f95e75280a304d2"))
    }

    @Test(arguments: [
        "", "not a pem", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
        TestKeys.pkcs8P384, TestKeys.pkcs8Ed25519, TestKeys.encryptedP256, TestKeys.publicP256,
    ])
    func badPEMIsRefused(pem: String) {
        #expect(throws: CryptoError.self) { try ES256PrivateKey.fromPEM(pem) }
    }

    @Test func keySetPublishesAndFindsKeys() throws {
        let first = try ES256PrivateKey.generate().publicKey
        let second = try ES256PrivateKey.generate().publicKey
        let set = ES256KeySet(thumbprintKeyed: [first, second])
        #expect(set.publicKey(for: first.thumbprint) == first)
        #expect(set.publicKey(for: "unknown") == nil)
        let jwks = set.jwks
        #expect(jwks.keys.count == 2)
        let json = try JSONEncoder().encode(jwks)
        #expect(String(decoding: json, as: UTF8.self).hasPrefix(#"{"keys":["#))
        let reloaded = try ES256KeySet(jwks: JSONDecoder().decode(JWKSet.self, from: json))
        #expect(reloaded.publicKey(for: second.thumbprint) == second)

        var withoutKid = first.jwk()
        withoutKid.kid = nil
        #expect(throws: CryptoError.self) { try ES256KeySet(jwks: JWKSet(keys: [withoutKid])) }
        let repeated = JWKSet(keys: [first.jwk(kid: "a"), second.jwk(kid: "a")])
        #expect(throws: CryptoError.self) { try ES256KeySet(jwks: repeated) }
    }
}

/// Throwaway keys generated for these tests only.
enum TestKeys {
    static let pkcs8P384 = """
        -----BEGIN PRIVATE KEY-----
        MIG2AgEAMBAGByqGSM49AgEGBSuBBAAiBIGeMIGbAgEBBDBPBAF07C0dctSj0QjG
        OaODCtDgbqDtmgaZAMfjAQsdUwvjk4tayloMnObVHXNgJuGhZANiAAQLVJ0t4NO6
        6ICwKPb7GJTr+7wGf1d/JsZftHOhcCDnAB4RhUjmxG5nQnMOU1XGZWV/BKcanhuD
        MBv0V2vqY2fYSIin718i3xboKI0fP2lJF9EAuRJ3B+ZKMves5EUU1Q4=
        -----END PRIVATE KEY-----

        """

    static let encryptedP256 = """
        -----BEGIN ENCRYPTED PRIVATE KEY-----
        MIH0MF8GCSqGSIb3DQEFDTBSMDEGCSqGSIb3DQEFDDAkBBDXNVsYwTyPTk1oU4HY
        /1y4AgIIADAMBggqhkiG9w0CCQUAMB0GCWCGSAFlAwQBKgQQ7Lw3yXpQJAfIViWO
        sgFYqgSBkPvfUly0cd38LPhxK+DIRM5gCc+vpR+GC6XJJbQRxfDVKLA0OjyKhmce
        hXHWYdPtWln8gPP36rbgKiNTZb8kDBsalu03yHo3MdBXffPHCPz4BCjD6lUV43Od
        QqM4CaRo20a0Gu1nBrw5EgSVhy6GSk4KB2bb8k+/w7k1Re6mvZ9OiGJegDT5n/WO
        7INWkbQIwQ==
        -----END ENCRYPTED PRIVATE KEY-----

        """

    static let sec1P256 = """
        -----BEGIN EC PRIVATE KEY-----
        MHcCAQEEIECqOjQkJ2C7Wy3mDuNHvp4nxhRZm965Fp/pnR/RSLoBoAoGCCqGSM49
        AwEHoUQDQgAE35hmDy/LiZj2RWM6IAKP31HwrUm16XAFMzs2ipeXP/kfzoGpIqtd
        +yTqd/JdpOqt8ueLVKccCJtPledSgKME0g==
        -----END EC PRIVATE KEY-----

        """

    static let publicP256 = """
        -----BEGIN PUBLIC KEY-----
        MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE35hmDy/LiZj2RWM6IAKP31HwrUm1
        6XAFMzs2ipeXP/kfzoGpIqtd+yTqd/JdpOqt8ueLVKccCJtPledSgKME0g==
        -----END PUBLIC KEY-----

        """

    static let pkcs8Ed25519 = """
        -----BEGIN PRIVATE KEY-----
        MC4CAQAwBQYDK2VwBCIEINFzXmt91EWzyOQeh5vXT/wH5iO1InFhlN4KJR3xsyEj
        -----END PRIVATE KEY-----

        """
}
