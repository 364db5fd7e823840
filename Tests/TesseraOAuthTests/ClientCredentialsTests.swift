import TesseraCrypto
import TesseraHTTP
import Testing

@testable import TesseraOAuth

/// How a token request names its client (RFC 6749 §2.3), read from the request alone: no database.
struct ClientCredentialsTests {
    static func request(authorization: String?, form: String = "grant_type=client_credentials") -> HTTPRequest {
        var headers: HTTPHeaders = ["Content-Type": "application/x-www-form-urlencoded"]
        if let authorization { headers.add(name: "Authorization", value: authorization) }
        return HTTPRequest(method: .post, target: "/oauth2/token", headers: headers, body: Array(form.utf8))
    }

    static func credentials(
        authorization: String?, form: String = "grant_type=client_credentials"
    ) throws(OAuthError)
        -> ClientCredentials
    {
        let request = request(authorization: authorization, form: form)
        return try ClientCredentials(request, form: OAuthForm(request))
    }

    /// The error reading the credentials fails with; nil when they are read.
    static func failure(authorization: String?, form: String = "grant_type=client_credentials") -> OAuthError? {
        do {
            _ = try credentials(authorization: authorization, form: form)
            return nil
        } catch { return error }
    }

    static func basic(_ text: String) -> String { "Basic " + Base64.encode(Array(text.utf8)) }

    @Test func basicCredentialsAreReadWhateverTheSchemeCaseAndSpacing() throws {
        let expected = ClientCredentials(clientID: "client-1", secret: "s3cret", method: .clientSecretBasic)
        #expect(try Self.credentials(authorization: Self.basic("client-1:s3cret")) == expected)
        let encoded = Base64.encode(Array("client-1:s3cret".utf8))
        #expect(try Self.credentials(authorization: "basic " + encoded) == expected)
        #expect(try Self.credentials(authorization: "BASIC   " + encoded) == expected)
        #expect(try Self.credentials(authorization: "  Basic " + encoded) == expected)
        // Spaces inside the encoded part are ignored, as they always were.
        let spaced = String(encoded.prefix(4)) + " " + String(encoded.dropFirst(4))
        #expect(try Self.credentials(authorization: "Basic " + spaced) == expected)
        // The same client named in the form as well is accepted.
        #expect(
            try Self.credentials(
                authorization: Self.basic("client-1:s3cret"), form: "grant_type=client_credentials&client_id=client-1")
                == expected)
    }

    @Test func basicCredentialsAreFormURLDecoded() throws {
        let credentials = try Self.credentials(authorization: Self.basic("a%3Ab+c:p%40ss+w%C3%B6rd:x"))
        #expect(credentials.clientID == "a:b c")
        #expect(credentials.secret == "p@ss wörd:x")
        // A secret longer than a small string, and an id and a secret that hold non-ASCII UTF-8 as it is.
        let long = String(repeating: "k", count: 80)
        #expect(try Self.credentials(authorization: Self.basic("ü:" + long)).secret == long)
        #expect(try Self.credentials(authorization: Self.basic("ü:" + long)).clientID == "ü")
    }

    @Test(arguments: [
        "Bearer abc",
        "Basic",
        "Basic ",
        "Basicx " + Base64.encode(Array("a:b".utf8)),
        "Basi " + Base64.encode(Array("a:b".utf8)),
        "Basic %%%",
        "Basic " + Base64.encode(Array("no-colon".utf8)),
        "Basic " + Base64.encode(Array(":secret".utf8)),
        "Basic " + Base64.encode(Array("client:".utf8)),
        "Basic " + Base64.encode(Array("client%zz:secret".utf8)),
        "Basic " + Base64.encode(Array("client:secret%2".utf8)),
        "Basic " + Base64.encode(Array("client:sec%00ret".utf8)),
        "Basic " + Base64.encode([0x63, 0xFF, 0x3A, 0x73]),
        "Basic " + Base64.encode([0x63, 0x3A, 0xC3, 0x28]),
        "Basic " + Base64URL.encode([0x61, 0x3A, 0xFB, 0xFF]),
    ])
    func malformedBasicCredentialsAreInvalidClient(authorization: String) {
        #expect(Self.failure(authorization: authorization)?.code == .invalidClient, "\(authorization)")
    }

    @Test func basicCannotBeMixedWithFormCredentials() {
        for form in ["grant_type=x&client_secret=s", "grant_type=x&client_id=other"] {
            #expect(Self.failure(authorization: Self.basic("client:s"), form: form)?.code == .invalidClient, "\(form)")
        }
    }

    @Test func formCredentials() throws {
        #expect(
            try Self.credentials(authorization: nil, form: "client_id=c&client_secret=s")
                == ClientCredentials(clientID: "c", secret: "s", method: .clientSecretPost))
        #expect(
            try Self.credentials(authorization: nil, form: "client_id=c")
                == ClientCredentials(clientID: "c", secret: nil, method: .none))
        #expect(Self.failure(authorization: nil, form: "grant_type=x")?.code == .invalidClient)
    }
}
