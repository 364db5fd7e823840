import FoundationEssentials
import MultiFactor
import TOTPFactor
import TesseraCore
import TesseraCrypto
import TesseraHTTP
import TesseraJSON
import Testing

@testable import FactorServices

/// The pieces of the factor protocol that need no database: the breaker, the nonce memory, the signatures, the
/// descriptor checks and the host's refusals.
@Suite struct ProtocolTests {
    @Test func theBreakerOpensAfterFiveFailuresLetsOneTrialThroughAndClosesOnSuccess() {
        var breaker = CircuitBreaker()
        let start = ContinuousClock.now
        for _ in 0..<4 {
            let answer1 = breaker.permit(now: start)
            #expect(answer1)
            breaker.failed(now: start)
        }
        #expect(breaker.state == .closed(failures: 4))
        breaker.succeeded()
        #expect(breaker.state == .closed(failures: 0))
        for _ in 0..<5 {
            let answer2 = breaker.permit(now: start)
            #expect(answer2)
            breaker.failed(now: start)
        }
        let answer3 = breaker.permit(now: start + .seconds(9))
        #expect(!answer3)
        #expect(!breaker.isUp(now: start + .seconds(9)))
        let answer4 = breaker.permit(now: start + .seconds(10))
        #expect(answer4)
        #expect(breaker.state == .trial)
        let answer5 = breaker.permit(now: start + .seconds(10))
        #expect(!answer5)
        breaker.failed(now: start + .seconds(10))
        #expect(breaker.state == .open(until: start + .seconds(20)))
        let answer6 = breaker.permit(now: start + .seconds(21))
        #expect(answer6)
        breaker.succeeded()
        #expect(breaker.isUp(now: start + .seconds(21)))
    }

    @Test func nonceMemoryRefusesARepeatWithinTheWindowAndForgetsAfterIt() {
        var memory = NonceMemory()
        let answer7 = memory.accept("a", now: 1000)
        #expect(answer7)
        let answer8 = memory.accept("a", now: 1050)
        #expect(!answer8)
        let answer9 = memory.accept("b", now: 1100)
        #expect(answer9)
        let answer10 = memory.accept("a", now: 1121)
        #expect(answer10)
        for index in 0..<5000 { _ = memory.accept("n\(index)", now: 2000 + Double(index) / 100) }
        _ = memory.accept("late", now: 3000)
        #expect(memory.count < 5000)
    }

    @Test func signaturesBindTheBodyTheTimestampTheNonceAndTheSecret() throws {
        let secret = try SecureRandom.bytes(count: 32)
        let body = Array(#"{"jsonrpc":"2.0"}"#.utf8)
        let signature = try FactorServiceSignature.request(body: body, secret: secret, timestamp: 100, nonce: "n")
        #expect(
            FactorServiceSignature.isValidRequest(signature, body: body, secret: secret, timestamp: 100, nonce: "n"))
        #expect(
            !FactorServiceSignature.isValidRequest(
                signature, body: body + [0x20], secret: secret, timestamp: 100, nonce: "n"))
        #expect(
            !FactorServiceSignature.isValidRequest(signature, body: body, secret: secret, timestamp: 101, nonce: "n"))
        #expect(
            !FactorServiceSignature.isValidRequest(signature, body: body, secret: secret, timestamp: 100, nonce: "m"))
        #expect(
            !FactorServiceSignature.isValidRequest(
                signature, body: body, secret: try SecureRandom.bytes(count: 32), timestamp: 100, nonce: "n"))
        #expect(
            !FactorServiceSignature.isValidRequest(
                "v2=" + signature.dropFirst(3), body: body, secret: secret, timestamp: 100, nonce: "n"))
        let answer = try FactorServiceSignature.response(body: body, secret: secret, nonce: "n")
        #expect(FactorServiceSignature.isValidResponse(answer, body: body, secret: secret, nonce: "n"))
        #expect(!FactorServiceSignature.isValidResponse(answer, body: body, secret: secret, nonce: "m"))
        #expect(answer != signature)
    }

    @Test func descriptorsAreCheckedMemberByMember() throws {
        let host = try FactorHost(
            factor: TOTPFactor(), id: "totp-remote", secret: [UInt8](repeating: 1, count: 32), database: NoDatabase())
        let described = try FactorServiceDescriptor(json: host.description)
        #expect(described.id == "totp-remote")
        #expect(described.amr == "otp")
        #expect(described.descriptor.enrollmentInfo.name == "totpRemoteEnrollmentInfo")
        #expect(described.descriptor.verificationInfo.name == "totpRemoteVerificationInfo")
        #expect(described.descriptor.loginPages != nil)
        var bad = host.description
        for (key, value): (String, JSONValue) in [
            ("protocolVersion", 2), ("id", "Email"), ("id", "password"), ("amr", "OTP"), ("members", "x"),
            ("enrollmentLifetime", 5), ("loginPages", 1),
        ] {
            bad = host.description
            bad[key] = value
            #expect(throws: AuthError.self) { try FactorServiceDescriptor(json: bad) }
        }
        bad = host.description
        bad["members"] = ["enrollmentInfo": ["name": "1x", "schema": [:]]]
        #expect(throws: AuthError.self) { try FactorServiceDescriptor(json: bad) }
    }

    @Test func endpointsArePlainHttpOnlyToLoopback() throws {
        #expect(throws: Never.self) {
            try FactorServiceEndpoints(["http://127.0.0.1:1/rpc", "http://[::1]:2/rpc"], allowInsecureHttp: false)
        }
        #expect(throws: Never.self) {
            try FactorServiceEndpoints(["https://factors.example.com/rpc"], allowInsecureHttp: false)
        }
        #expect(throws: AuthError.self) {
            try FactorServiceEndpoints(["http://192.168.1.2/rpc"], allowInsecureHttp: false)
        }
        #expect(throws: Never.self) { try FactorServiceEndpoints(["http://192.168.1.2/rpc"], allowInsecureHttp: true) }
        #expect(throws: AuthError.self) {
            try FactorServiceEndpoints(["http://localhost/rpc"], allowInsecureHttp: false)
        }
        #expect(throws: AuthError.self) {
            try FactorServiceEndpoints(Array(repeating: "https://a.example/rpc", count: 9), allowInsecureHttp: false)
        }
    }

    @Test func theHostRefusesUnsignedOldReplayedAndForeignRequestsAndSignsItsAnswers() async throws {
        let secret = try SecureRandom.bytes(count: 32)
        let host = try FactorHost(factor: TOTPFactor(), secret: secret, database: NoDatabase())
        let body =
            Array(
                #"{"jsonrpc":"2.0","id":1,"method":"factor.verifySignIn","params":{"user":{"localId":"u"},"#.utf8)
            + Array(#""context":{"now":"2026-11-25T10:00:00Z"},"info":{"verificationCode":"123456"},"#.utf8)
            + Array(
                #""enrollment":{"mfaEnrollmentId":"e","publicInfo":{},"enrollmentState":"AAAA"},"state":null}}"#.utf8)
        func request(timestamp: Int64, nonce: String, key: [UInt8] = secret) throws -> HTTPRequest {
            var headers = HTTPHeaders()
            headers.add(name: FactorServiceSignature.timestampHeader, value: String(timestamp))
            headers.add(name: FactorServiceSignature.nonceHeader, value: nonce)
            headers.add(
                name: FactorServiceSignature.signatureHeader,
                value: try FactorServiceSignature.request(body: body, secret: key, timestamp: timestamp, nonce: nonce))
            return HTTPRequest(method: .post, target: "/rpc", headers: headers, body: body)
        }
        let now = Int64(Date().timeIntervalSince1970)
        let nonce = try FactorServiceSignature.makeNonce()
        let signed = try request(timestamp: now, nonce: nonce)
        let answered = await host.respond(to: signed)
        #expect(answered.status == .ok)
        let signature = try #require(answered.headers[FactorServiceSignature.signatureHeader])
        #expect(FactorServiceSignature.isValidResponse(signature, body: answered.body, secret: secret, nonce: nonce))
        // A wrong code is the protocol's INVALID_CODE, passed on as it is.
        let answer = try #require(try JSONValue(parsing: String(decoding: answered.body, as: UTF8.self)).objectValue)
        #expect(answer["error"]?["data"]?["reason"]?.stringValue == "INVALID_CODE")
        #expect((await host.respond(to: signed)).status == .unauthorized)
        #expect(
            (await host.respond(to: try request(timestamp: now - 61, nonce: try FactorServiceSignature.makeNonce())))
                .status == .unauthorized)
        #expect(
            (await host.respond(
                to: try request(
                    timestamp: now, nonce: try FactorServiceSignature.makeNonce(),
                    key: try SecureRandom.bytes(count: 32)))).status == .unauthorized)
        #expect(
            (await host.respond(to: HTTPRequest(method: .post, target: "/rpc", headers: HTTPHeaders(), body: body)))
                .status == .unauthorized)
        // describe needs no signature.
        let describe = HTTPRequest(
            method: .post, target: "/rpc", headers: HTTPHeaders(),
            body: Array(#"{"jsonrpc":"2.0","id":2,"method":"factor.describe"}"#.utf8))
        #expect((await host.respond(to: describe)).status == .ok)
    }

    @Test func answersAreReadStrictly() throws {
        func result(_ text: String, id: Int64 = 7) throws -> JSONObject {
            try FactorServiceClient.result(of: Array(text.utf8), requestID: id)
        }
        #expect(try result(#"{"jsonrpc":"2.0","id":7,"result":{"a":1}}"#) == ["a": 1])
        for text in [
            "garbage", "[]", #"{"jsonrpc":"2.0","id":8,"result":{}}"#, #"{"jsonrpc":"1.0","id":7,"result":{}}"#,
            #"{"jsonrpc":"2.0","id":7}"#, #"{"jsonrpc":"2.0","id":7,"result":[]}"#,
            #"{"jsonrpc":"2.0","id":7,"error":{"code":-32000,"message":"x","data":{"reason":"INTERNAL"}}}"#,
            #"{"jsonrpc":"2.0","id":7,"error":{"code":-32000,"message":"x","data":{"reason":"PERMISSION_DENIED"}}}"#,
        ] {
            #expect(throws: FactorServiceClient.Failure.self) { try result(text) }
        }
        do {
            _ = try result(
                #"{"jsonrpc":"2.0","id":7,"error":{"code":-32000,"message":"INVALID_CODE : no","#
                    + #""data":{"reason":"INVALID_CODE"}}}"#)
            Issue.record("a refusal was read as a result")
        } catch let failure as FactorServiceClient.Failure {
            #expect(failure.refusal == AuthError(.invalidCode, "no"))
        }
    }
}

/// The host serves the protocol's reference document, and the two copies agree.
@Suite struct DiscoveryDocumentTests {
    @Test func theHostServesTheDocumentInDocs() throws {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/factor-protocol.openrpc.json")
        let text = try #require(FileManager.default.contents(atPath: docs.path))
        let published = try JSONValue(parsing: String(decoding: text, as: UTF8.self))
        #expect(published == .object(FactorHost.discovery))
        let names = FactorHost.discovery["methods"]?.arrayValue?.compactMap { $0["name"]?.stringValue }
        #expect(
            names == [
                "factor.describe", "factor.startEnrollment", "factor.finalizeEnrollment", "factor.startSignIn",
                "factor.verifySignIn",
            ])
    }
}
