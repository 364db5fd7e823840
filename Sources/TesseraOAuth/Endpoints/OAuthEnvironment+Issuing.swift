import FoundationEssentials
import TesseraCore
import TesseraCrypto
import TesseraHTTP
import TesseraJSON

extension OAuthEnvironment {
    /// The successful token response of `grant` (RFC 6749 §5.1): a signed access token, the refresh token when
    /// one was issued, and an ID token when the grant is a user's and its scope has `openid`.
    func tokenResponse(_ grant: IssuedGrant, now: Date) async throws -> HTTPResponse {
        let signer = try await signingKeys.signer()
        let issuedAt = Int64(now.timeIntervalSince1970)
        let subject = grant.subject
        let accessClaims = AccessTokenClaims(
            iss: issuer, sub: subject?.userID ?? grant.client.clientID, aud: grant.client.clientID,
            clientID: grant.client.clientID, scope: grant.scope.text, iat: issuedAt,
            exp: issuedAt + Int64(grant.client.accessTokenTTL), jti: try SecureRandom.identifier(),
            authTime: subject.map { Int64($0.authTime.timeIntervalSince1970) }, amr: subject?.amr,
            tenant: subject?.tenantID ?? grant.client.tenantID, sid: subject?.familyID)
        let accessToken = try signer.sign(payload: accessClaims.payload, type: .accessToken)
        // Written member by member, as the tokens' payloads are: no `JSONValue` tree for a response this common.
        var body = JSONObjectWriter(reservingCapacity: 2048)
        body.member("access_token", accessToken)
        body.member("token_type", "Bearer")
        body.member("expires_in", Int64(grant.client.accessTokenTTL))
        body.member("refresh_token", grant.refreshToken)
        body.member("scope", grant.scope.text)
        if let subject, grant.identityScope.contains("openid") {
            let scope = grant.identityScope
            let hash = try Digest.sha256(accessToken)
            let idClaims = OpenIDTokenClaims(
                iss: issuer, sub: subject.userID, aud: grant.client.clientID, iat: issuedAt,
                exp: issuedAt + Tokens.idTokenLifetime, authTime: Int64(subject.authTime.timeIntervalSince1970),
                nonce: grant.nonce, amr: subject.amr, atHash: Base64URL.encode(Array(hash.prefix(hash.count / 2))),
                email: scope.contains("email") ? subject.email : nil,
                emailVerified: scope.contains("email") && subject.email != nil ? subject.emailVerified : nil,
                name: scope.contains("profile") ? subject.displayName : nil,
                phoneNumber: scope.contains("phone") ? subject.phoneNumber : nil, sid: subject.familyID)
            body.member("id_token", try signer.sign(payload: idClaims.payload, type: .jwt))
        }
        return OAuthResponse.json(serialized: body.finish())
    }
}
