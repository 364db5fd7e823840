import TesseraHTTP
import TesseraJSON
import TesseraOAuth
import Testing

/// The RFC 8414 / OIDC Discovery document.
@Suite struct ServerMetadataTests {
    @Test func theDocumentNamesEveryEndpointAndCapability() throws {
        let metadata = ServerMetadata(issuer: "https://auth.example.com")
        let document = metadata.document
        #expect(document["issuer"] == "https://auth.example.com")
        #expect(document["authorization_endpoint"] == "https://auth.example.com/oauth2/authorize")
        #expect(document["token_endpoint"] == "https://auth.example.com/oauth2/token")
        #expect(document["jwks_uri"] == "https://auth.example.com/oauth2/jwks")
        #expect(document["revocation_endpoint"] == "https://auth.example.com/oauth2/revoke")
        #expect(document["introspection_endpoint"] == "https://auth.example.com/oauth2/introspect")
        #expect(document["end_session_endpoint"] == "https://auth.example.com/oauth2/logout")
        #expect(document["response_types_supported"] == ["code"])
        #expect(document["response_modes_supported"] == ["query"])
        #expect(document["grant_types_supported"] == ["authorization_code", "refresh_token", "client_credentials"])
        #expect(document["code_challenge_methods_supported"] == ["S256"])
        #expect(
            document["token_endpoint_auth_methods_supported"]
                == ["client_secret_basic", "client_secret_post", "none"])
        #expect(
            document["revocation_endpoint_auth_methods_supported"]
                == ["client_secret_basic", "client_secret_post", "none"])
        #expect(
            document["introspection_endpoint_auth_methods_supported"] == ["client_secret_basic", "client_secret_post"])
        #expect(document["authorization_response_iss_parameter_supported"] == true)
        #expect(document["subject_types_supported"] == ["public"])
        #expect(document["id_token_signing_alg_values_supported"] == ["ES256"])
        #expect(document["scopes_supported"]?.arrayValue?.contains("openid") == true)
        #expect(document["claims_supported"]?.arrayValue?.contains("amr") == true)

        let response = metadata.response()
        #expect(response.status.code == 200)
        #expect(response.headers["Content-Type"] == "application/json")
        #expect(response.headers["Cache-Control"] == "public, max-age=3600")
        #expect(try JSONValue(parsing: response.body).objectValue == document)
    }

    @Test func aTrailingSlashIsNotDoubled() {
        let document = ServerMetadata(issuer: "https://auth.example.com/").document
        #expect(document["token_endpoint"] == "https://auth.example.com/oauth2/token")
    }
}
