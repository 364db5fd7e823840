import FoundationEssentials
import Logging
import MultiFactor
import TesseraCore
import TesseraHTTP
import TesseraPostgres

/// The end of a login: what follows a passed first factor, and issuing the code.
struct LoginCompletion: Sendable {
    let context: LoginContext

    /// Moves `opened` on after the router's first-factor outcome: a challenge leads to the second-factor pages,
    /// tokens that demand an enrolment to the enrolment pages, other tokens to the code.
    func advance(_ pool: PostgresPool, _ opened: OpenedFlow, outcome: SignInOutcome) async throws -> HTTPResponse {
        var opened = opened
        switch outcome {
        case .tokens(let tokens) where tokens.mfaEnrollmentRequired == true:
            try opened.flow.demandEnrollment(userID: tokens.localId, idToken: tokens.idToken)
        case .tokens(let tokens):
            return try await finish(pool, opened, tokens: tokens)
        case .challenge(let challenge):
            let factors = try await context.factors()
            let usable = challenge.mfaInfo.filter { PageFactor($0.factorID, in: factors) != nil }
            guard !usable.isEmpty else {
                return ErrorPage.response(
                    .badRequest, title: "Sign-in not possible here",
                    message: "Your second factor cannot be used on this page. Sign in with the app instead.")
            }
            try opened.flow.demandSecondFactor(
                userID: challenge.localId, credential: challenge.mfaPendingCredential, factors: usable)
        }
        guard try await LoginFlows.save(pool, keyRing: context.keyRing, opened.flow, now: context.now) else {
            return ErrorPage.flowEnded("This sign-in has ended. Return to the app and start again.")
        }
        return context.nextPage(opened)
    }

    /// Completes `opened` with the tokens of a finished sign-in: ends the flow (once), keeps the browser signed in
    /// on the sign-in's token family (a new session, or a new one in place of the SSO session the flow upgrades),
    /// issues the code and redirects to the client.
    func finish(_ pool: PostgresPool, _ opened: OpenedFlow, tokens: TokenResult) async throws -> HTTPResponse {
        guard let family = try await BrowserSessions.family(pool, refreshToken: tokens.refreshToken) else {
            throw MissingSignInFamily()
        }
        let now = context.now
        var flow = opened.flow
        try flow.complete()
        let issued: (code: String, session: BrowserSessions.Stored)? = try await pool.transaction { transaction in
            guard try await LoginFlows.complete(transaction, hash: flow.hash, now: now) else { return nil }
            let session: BrowserSessions.Stored
            if let upgraded = flow.browserSessionHash {
                session = try await BrowserSessions.upgrade(transaction, hash: upgraded, to: family.familyID, now: now)
            } else {
                session = try await BrowserSessions.create(transaction, familyID: family.familyID, now: now)
            }
            let code = try AuthorizationCodes.issue(
                Self.grant(flow.request, family: family), now: now, keys: context.services.codeKeys)
            return (code, session)
        }
        guard let issued else {
            return ErrorPage.flowEnded("This sign-in is already complete or has expired. Return to the app.")
        }
        if let upgraded = flow.browserSessionHash { context.revocations.ended(hash: upgraded, now: now) }
        let cookie = SessionCookie(
            secret: issued.session.secret, family: family, enrollmentRequired: tokens.mfaEnrollmentRequired == true,
            expiresAt: issued.session.expiresAt)
        var response = LoginResponse.redirect(
            to: OAuthRedirect.code(issued.code, for: flow.request, issuer: context.issuer), status: .seeOther)
        try response.setCookie(context.cookies.session(try cookie.sealed(keys: context.services.sessionKeys)))
        log(flow.request, family: family, sso: false)
        return response
    }

    /// SSO: a code straight from a live browser session, redirected with `302 Found`.
    func issue(
        _ pool: PostgresPool, _ request: AuthorizationRequest, family: SignInFamily
    ) async throws
        -> HTTPResponse
    {
        let code = try AuthorizationCodes.issue(
            Self.grant(request, family: family), now: context.now, keys: context.services.codeKeys)
        log(request, family: family, sso: true)
        return LoginResponse.redirect(to: OAuthRedirect.code(code, for: request, issuer: context.issuer))
    }

    /// The grant of a code issued for `request` from the sign-in `family`.
    static func grant(_ request: AuthorizationRequest, family: SignInFamily) -> AuthorizationGrant {
        AuthorizationGrant(
            clientID: request.clientID, userID: family.userID, redirectURI: request.redirectURI,
            codeChallenge: request.codeChallenge, scope: request.scope, nonce: request.nonce,
            authTime: family.authTime, provider: family.provider, secondFactor: family.secondFactor,
            secondFactorID: family.secondFactorID, signInFamilyID: family.familyID)
    }

    private func log(_ request: AuthorizationRequest, family: SignInFamily, sso: Bool) {
        context.logger.info(
            "authorization code issued",
            metadata: [
                "client": .string(request.clientID), "tenant": .string(request.tenantID ?? "-"),
                "user": .string(family.userID), "sso": .string(sso ? "true" : "false"),
            ])
    }
}

/// The router's sign-in left no token family behind its refresh token: a bug, shown as "try again later".
private struct MissingSignInFamily: Error, CustomStringConvertible {
    var description: String { "the token family of a completed sign-in is missing" }
}
