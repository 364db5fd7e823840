import TesseraCrypto
import TesseraTestSupport
import Testing

@Suite("SHA-2 digests")
struct DigestTests {
    // The vectors' own member names.
    // swift-format-ignore: AlwaysUseLowerCamelCase
    struct PKCEVector: Decodable {
        let code_verifier: String
        let code_challenge_method: String
        let code_challenge: String
    }

    @Test func sha256OfKnownInputs() throws {
        let abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        let empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        #expect(hexString(try Digest.sha256("abc")) == abc)
        #expect(hexString(try Digest.sha256("")) == empty)
        #expect(try Digest.sha256(Array("abc".utf8)) == Digest.sha256("abc"))
    }

    /// Each thread computes in a context of its own, kept from digest to digest: threads at once, alternating
    /// algorithms in one context, get the vectors' digests every time.
    @Test func digestsFromManyThreadsAtOnce() async throws {
        let abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        let abc512 =
            "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
            + "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"
        let wrong = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    var wrong = 0
                    for _ in 0..<300 {
                        if hexString(try Digest.sha256("abc")) != abc { wrong += 1 }
                        if hexString(try Digest.sha512("abc")) != abc512 { wrong += 1 }
                    }
                    return wrong
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(wrong == 0)
    }

    @Test func sha512OfKnownInputs() throws {
        #expect(
            hexString(try Digest.sha512("abc"))
                == "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
                + "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"
        )
        #expect(
            hexString(try Digest.sha512([]))
                == "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce"
                + "47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e"
        )
    }

    @Test func pkceS256OfTheVerifierIsTheChallenge() throws {
        let vector = try SharedVectors.load("rfc7636-pkce.json", as: PKCEVector.self)
        #expect(vector.code_challenge_method == "S256")
        #expect(Base64URL.encode(try Digest.sha256(vector.code_verifier)) == vector.code_challenge)
    }
}
