import TesseraCrypto
import Testing

@Suite("AES-256-GCM and KeyRing")
struct AESGCMTests {
    @Test func knownAnswersFromTheGCMSpecification() throws {
        // McGrew & Viega, "The Galois/Counter Mode of Operation", test cases 13 and 14: zero key and nonce.
        let key = try SymmetricKey(bytes: Array(repeating: 0, count: 32))
        let nonce = [UInt8](repeating: 0, count: 12)
        let empty = AESGCM.SealedBox(nonce: nonce, ciphertext: [], tag: hexBytes("530f8afbc74536b9a963b4f1c4cb738b"))
        #expect(try AESGCM.open(empty, using: key).isEmpty)
        let block = AESGCM.SealedBox(
            nonce: nonce, ciphertext: hexBytes("cea7403d4d606b6e074ec5d3baf39d18"),
            tag: hexBytes("d0d1c8a799996bf0265b98b5d48ab919")
        )
        #expect(try AESGCM.open(block, using: key) == Array(repeating: 0, count: 16))
    }

    @Test func contextsKeptBetweenOperationsGiveTheSameAnswers() async throws {
        // Each operation takes an idle context that an earlier one set up (with another key, with the same key, whose
        // schedule the context keeps and is given only a nonce, the other direction, or a failure in between) and
        // must answer as a new context would: the known answer, a round trip, a refusal. Many threads at once share
        // the pool.
        let zero = try SymmetricKey(bytes: Array(repeating: 0, count: 32))
        let known = AESGCM.SealedBox(
            nonce: [UInt8](repeating: 0, count: 12), ciphertext: hexBytes("cea7403d4d606b6e074ec5d3baf39d18"),
            tag: hexBytes("d0d1c8a799996bf0265b98b5d48ab919"))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    let key = try SymmetricKey.generate()
                    for round in 0..<200 {
                        let message = [UInt8](repeating: UInt8(truncatingIfNeeded: worker + round), count: round % 40)
                        let box = try AESGCM.seal(message, using: key, associatedData: [UInt8(worker)])
                        #expect(try AESGCM.open(box, using: key, associatedData: [UInt8(worker)]) == message)
                        #expect(throws: AESGCMError.authenticationFailed) {
                            try AESGCM.open(box, using: zero, associatedData: [UInt8(worker)])
                        }
                        #expect(try AESGCM.open(known, using: zero) == Array(repeating: 0, count: 16))
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    @Test func derivedRingsOpenOnlyTheirOwnPurposeAndRotateWithTheMasterKeys() throws {
        let old = try MasterKey(key: try SymmetricKey(bytes: [UInt8](repeating: 1, count: 32)))
        let new = try MasterKey(key: try SymmetricKey(bytes: [UInt8](repeating: 2, count: 32)))
        let ring = try KeyRing(current: old)
        let codes = try ring.derived(purpose: "authorization code")
        let other = try ring.derived(purpose: "something else")
        let sealed = try codes.seal([1, 2, 3])
        #expect(try codes.open(sealed) == [1, 2, 3])
        #expect(throws: AESGCMError.self) { try other.open(sealed) }
        #expect(throws: AESGCMError.self) { try ring.open(sealed) }
        #expect(throws: AESGCMError.self) { try codes.open(try ring.seal([1, 2, 3])) }
        // The same master key always derives the same key (fleet-wide), under a short id.
        #expect(try KeyRing(current: old).derived(purpose: "authorization code").open(sealed) == [1, 2, 3])
        #expect(codes.currentKeyID.count == 9 && codes.currentKeyID.hasPrefix("d"))
        let rotated = try KeyRing(current: new, previous: [old]).derived(purpose: "authorization code")
        #expect(try rotated.open(sealed) == [1, 2, 3])
        #expect(rotated.currentKeyID != codes.currentKeyID)
        #expect(throws: AESGCMError.self) { try codes.open(try rotated.seal([4])) }
    }

    @Test func roundTripWithAssociatedData() throws {
        let key = try SymmetricKey.generate()
        let plaintext = Array("a TOTP secret".utf8)
        let aad = Array("tenant-1/enrolment-7".utf8)
        let box = try AESGCM.seal(plaintext, using: key, associatedData: aad)
        #expect(box.nonce.count == 12)
        #expect(box.tag.count == 16)
        #expect(box.ciphertext.count == plaintext.count)
        #expect(box.ciphertext != plaintext)
        #expect(try AESGCM.open(box, using: key, associatedData: aad) == plaintext)
        let again = try AESGCM.seal(plaintext, using: key, associatedData: aad)
        #expect(again.nonce != box.nonce)
        #expect(try AESGCM.open(AESGCM.seal([], using: key), using: key).isEmpty)
    }

    @Test func anyChangeIsRefused() throws {
        let key = try SymmetricKey.generate()
        let aad = Array("context".utf8)
        let box = try AESGCM.seal(Array("plaintext".utf8), using: key, associatedData: aad)
        var changed = box
        changed.nonce[0] ^= 0x01
        #expect(throws: AESGCMError.authenticationFailed) { try AESGCM.open(changed, using: key, associatedData: aad) }
        changed = box
        changed.ciphertext[3] ^= 0x80
        #expect(throws: AESGCMError.authenticationFailed) { try AESGCM.open(changed, using: key, associatedData: aad) }
        changed = box
        changed.tag[15] ^= 0x01
        #expect(throws: AESGCMError.authenticationFailed) { try AESGCM.open(changed, using: key, associatedData: aad) }
        #expect(throws: AESGCMError.authenticationFailed) { try AESGCM.open(box, using: key, associatedData: []) }
        #expect(throws: AESGCMError.authenticationFailed) {
            try AESGCM.open(box, using: key, associatedData: Array("Context".utf8))
        }
        #expect(throws: AESGCMError.authenticationFailed) {
            try AESGCM.open(box, using: SymmetricKey.generate(), associatedData: aad)
        }
    }

    @Test func keysMustBe32BytesAndBoxesWellFormed() throws {
        for length in [0, 16, 31, 33, 64] {
            #expect(throws: AESGCMError.invalidKeyLength(length)) {
                try SymmetricKey(bytes: Array(repeating: 1, count: length))
            }
        }
        let key = try SymmetricKey.generate()
        #expect("\(key)" == "SymmetricKey(redacted)")
        #expect(key.hasSameMaterial(as: try SymmetricKey(bytes: key.rawBytes)))
        let box = try AESGCM.seal([1, 2, 3], using: key)
        #expect(throws: AESGCMError.self) {
            try AESGCM.open(AESGCM.SealedBox(nonce: [0], ciphertext: box.ciphertext, tag: box.tag), using: key)
        }
        #expect(throws: AESGCMError.self) {
            try AESGCM.open(AESGCM.SealedBox(nonce: box.nonce, ciphertext: box.ciphertext, tag: []), using: key)
        }
    }

    @Test func keyRingEnvelopeLayout() throws {
        let ring = try KeyRing(currentKeyID: "k1", keys: ["k1": SymmetricKey.generate()])
        let plaintext = Array("secret".utf8)
        let envelope = try ring.seal(plaintext)
        #expect(envelope.count == 1 + 1 + 2 + 12 + plaintext.count + 16)
        #expect(envelope[0] == 1)
        #expect(envelope[1] == 2)
        #expect(Array(envelope[2..<4]) == Array("k1".utf8))
        #expect(try KeyRing.keyID(of: envelope) == "k1")
        #expect(try ring.open(envelope) == plaintext)
    }

    @Test func keyRingEnvelopesAreAESGCMOfTheHeaderAndTheAssociatedDataJoined() throws {
        // The ring feeds the header and the caller's associated data to GCM one after the other, and writes the
        // envelope in place; an envelope must be what sealing the joined bytes gives, so that envelopes stored
        // before (sealed with the header and the associated data joined in one array) still open, and the other way
        // round. Lengths that leave GHASH's 16-byte blocks part full at every boundary, and empty ones.
        let key = try SymmetricKey.generate()
        let ring = try KeyRing(currentKeyID: "k1", keys: ["k1": key])
        let header: [UInt8] = [1, 2] + Array("k1".utf8)
        for (plaintextCount, associatedCount) in [(0, 0), (0, 21), (7, 0), (33, 21), (16, 12)] {
            let plaintext = (0..<plaintextCount).map { UInt8(truncatingIfNeeded: $0 &* 7) }
            let associatedData = (0..<associatedCount).map { UInt8(truncatingIfNeeded: $0 &* 13) }
            let envelope = try ring.seal(plaintext, associatedData: associatedData)
            let box = AESGCM.SealedBox(
                nonce: Array(envelope[4..<16]), ciphertext: Array(envelope[16..<(envelope.count - 16)]),
                tag: Array(envelope[(envelope.count - 16)...]))
            #expect(try AESGCM.open(box, using: key, associatedData: header + associatedData) == plaintext)
            let joined = try AESGCM.seal(plaintext, using: key, associatedData: header + associatedData)
            let sealedJoined = header + joined.nonce + joined.ciphertext + joined.tag
            #expect(try ring.open(sealedJoined, associatedData: associatedData) == plaintext)
            #expect(throws: AESGCMError.authenticationFailed) {
                try ring.open(sealedJoined, associatedData: associatedData + [0])
            }
        }
    }

    @Test func keyRingRefusesEveryFlippedBit() throws {
        let ring = try KeyRing(currentKeyID: "current", keys: ["current": SymmetricKey.generate()])
        let aad = Array("user-42".utf8)
        let envelope = try ring.seal(Array("totp secret".utf8), associatedData: aad)
        for index in envelope.indices {
            for bit in 0..<8 {
                var changed = envelope
                changed[index] ^= 1 << bit
                #expect(throws: AESGCMError.self, "byte \(index) bit \(bit)") {
                    try ring.open(changed, associatedData: aad)
                }
            }
        }
        for index in aad.indices {
            var changed = aad
            changed[index] ^= 0x01
            #expect(throws: AESGCMError.authenticationFailed) { try ring.open(envelope, associatedData: changed) }
        }
    }

    @Test func keyRingRotation() throws {
        let old = try SymmetricKey.generate()
        let new = try SymmetricKey.generate()
        let before = try KeyRing(currentKeyID: "2025-01", keys: ["2025-01": old])
        let envelope = try before.seal(Array("sealed long ago".utf8), associatedData: [7])

        let after = try KeyRing(currentKeyID: "2026-01", keys: ["2025-01": old, "2026-01": new])
        #expect(try after.open(envelope, associatedData: [7]) == Array("sealed long ago".utf8))
        #expect(try after.needsResealing(envelope))
        let resealed = try after.seal(after.open(envelope, associatedData: [7]), associatedData: [7])
        #expect(try KeyRing.keyID(of: resealed) == "2026-01")
        #expect(try !after.needsResealing(resealed))
        #expect(after.keyIDs == ["2025-01", "2026-01"])

        let retired = try KeyRing(currentKeyID: "2026-01", keys: ["2026-01": new])
        #expect(throws: AESGCMError.unknownKeyID("2025-01")) { try retired.open(envelope, associatedData: [7]) }
    }

    @Test func keyRingRefusesBadConfigurationAndMalformedEnvelopes() throws {
        let key = try SymmetricKey.generate()
        #expect(throws: AESGCMError.missingCurrentKey("b")) { try KeyRing(currentKeyID: "b", keys: ["a": key]) }
        #expect(throws: AESGCMError.self) { try KeyRing(currentKeyID: "", keys: ["": key]) }
        #expect(throws: AESGCMError.self) { try KeyRing(currentKeyID: "a b", keys: ["a b": key]) }
        #expect(throws: AESGCMError.self) {
            let longID = String(repeating: "k", count: 256)
            return try KeyRing(currentKeyID: longID, keys: [longID: key])
        }
        let ring = try KeyRing(currentKeyID: "a", keys: ["a": key])
        let envelope = try ring.seal([1, 2, 3])
        for length in 0..<(2 + 1 + 12 + 16) {
            #expect(throws: AESGCMError.self, "\(length) bytes") { try ring.open(Array(envelope.prefix(length))) }
        }
        var future = envelope
        future[0] = 2
        #expect(throws: AESGCMError.unsupportedVersion(2)) { try ring.open(future) }
        var emptyKeyID = envelope
        emptyKeyID[1] = 0
        #expect(throws: AESGCMError.malformedEnvelope("empty key id")) { try ring.open(emptyKeyID) }
    }

    @Test func keyRingFromMasterKeys() throws {
        let old = try MasterKey(key: SymmetricKey.generate())
        let current = try MasterKey(key: SymmetricKey.generate())
        let envelope = try KeyRing(current: old).seal([42])
        let ring = try KeyRing(current: current, previous: [old])
        #expect(ring.currentKeyID == current.keyID)
        #expect(try ring.open(envelope) == [42])
        #expect(try KeyRing.keyID(of: ring.seal([1])) == current.keyID)
    }
}
