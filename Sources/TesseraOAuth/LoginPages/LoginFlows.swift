import FoundationEssentials
import TesseraCore
import TesseraCrypto
import TesseraJSON
import TesseraPostgres

/// The `oauth_login_flows` table. Sealed columns are bound to their flow (the flow hash is the associated data),
/// so a sealed value copied into another flow does not open.
enum LoginFlows {
    private static let columns = """
        flow_hash, browser_hash, client_id, tenant_id, redirect_uri, state, code_challenge, scope, nonce, login_hint,
        step, user_id, sealed_credential, factors, enrollment_id, factor, sealed_challenge, sms_sent_at,
        browser_session_hash, expires_at, completed_at
        """

    /// Stores a new flow.
    ///
    /// Never inlined, nor is ``save(_:keyRing:_:now:)``: inlined into the async handlers of the pages, their long
    /// parameter arrays make Swift 6.3.1's release build crash (signal 11 in LLVM's coroutine splitting of the
    /// caller). `.ci/run` builds in release, so a crash of this kind fails CI.
    @inline(never)
    static func insert(_ db: any SQLRunner, keyRing: KeyRing, _ flow: LoginFlow, now: Date) async throws {
        let request = flow.request
        let sealed = try sealedColumns(flow, keyRing: keyRing)
        try await db.query(
            """
            INSERT INTO oauth_login_flows (\(columns), created_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22)
            """,
            [
                flow.hash, flow.browserHash, request.clientID, request.tenantID, request.redirectURI, request.state,
                request.codeChallenge, request.scope, request.nonce, request.loginHint, flow.step.rawValue,
                flow.userID, sealed.credential, sealed.factors, flow.enrollmentID, flow.factor, sealed.challenge,
                flow.smsSentAt, flow.browserSessionHash, flow.expiresAt, flow.completedAt, now,
            ])
    }

    /// The flow whose id hashes to `hash`, expired or completed ones included; nil when there is none.
    static func find(_ db: any SQLRunner, keyRing: KeyRing, hash: [UInt8]) async throws -> LoginFlow? {
        let result = try await db.query("SELECT \(columns) FROM oauth_login_flows WHERE flow_hash = $1", [hash])
        guard let row = result.rows.first else { return nil }
        let request = AuthorizationRequest(
            clientID: try row.decode(String.self, at: 2), tenantID: try row.decode(String?.self, at: 3),
            redirectURI: try row.decode(String.self, at: 4), state: try row.decode(String?.self, at: 5),
            codeChallenge: try row.decode(String.self, at: 6), scope: try row.decode(String.self, at: 7),
            nonce: try row.decode(String?.self, at: 8), loginHint: try row.decode(String?.self, at: 9))
        let credential = try row.decode([UInt8]?.self, at: 12).map {
            String(decoding: try keyRing.open($0, associatedData: hash), as: UTF8.self)
        }
        // A list stored before enrolments carried their factor id has no `factor` members and does not decode.
        let storedFactors = try row.decode(String?.self, at: 13)
        let factors = storedFactors.flatMap { text in
            (try? JSONValueDecoder().decode([StoredEnrollment].self, from: try JSONParser().parse(Array(text.utf8))))
                .map { $0.map(\.enrollment) }
        }
        let challenge = try row.decode([UInt8]?.self, at: 16).map {
            try JSONValueDecoder().decode(
                LoginChallenge.self, from: try JSONParser().parse(try keyRing.open($0, associatedData: hash)))
        }
        let step = LoginStep(rawValue: try row.decode(String.self, at: 10))
        var flow = LoginFlow(
            hash: hash, browserHash: try row.decode([UInt8].self, at: 1), request: request, step: step ?? .password,
            userID: try row.decode(String?.self, at: 11), credential: credential, factors: factors ?? [],
            enrollmentID: try row.decode(String?.self, at: 14), factor: try row.decode(String?.self, at: 15),
            challenge: challenge, smsSentAt: try row.decode(Date?.self, at: 17),
            browserSessionHash: try row.decode([UInt8]?.self, at: 18), expiresAt: try row.decode(Date.self, at: 19),
            completedAt: try row.decode(Date?.self, at: 20))
        // Flows stored by an older server (the retired steps `enroll_totp` and `enroll_phone`, enrolment lists
        // without factor ids) are answered with a restart at the password step rather than read on: a flow lives
        // at most 10 minutes, so only sign-ins under way during an upgrade meet it. A completed flow is not read on
        // at all.
        if step == nil || (storedFactors != nil && factors == nil), flow.completedAt == nil { try flow.restart() }
        return flow
    }

    /// Writes the step and what it holds; false when the flow has meanwhile been completed or has expired.
    @discardableResult @inline(never)
    static func save(_ db: any SQLRunner, keyRing: KeyRing, _ flow: LoginFlow, now: Date) async throws -> Bool {
        let sealed = try sealedColumns(flow, keyRing: keyRing)
        let result = try await db.query(
            """
            UPDATE oauth_login_flows SET step = $2, user_id = $3, sealed_credential = $4, factors = $5,
                enrollment_id = $6, factor = $7, sealed_challenge = $8, sms_sent_at = $9, browser_session_hash = $10
            WHERE flow_hash = $1 AND completed_at IS NULL AND expires_at > $11
            RETURNING 1
            """,
            [
                flow.hash, flow.step.rawValue, flow.userID, sealed.credential, sealed.factors, flow.enrollmentID,
                flow.factor, sealed.challenge, flow.smsSentAt, flow.browserSessionHash, now,
            ])
        return result.rowCount == 1
    }

    /// Claims the first SMS of the flow's current challenge: true for exactly one caller.
    static func claimSMS(_ db: any SQLRunner, hash: [UInt8], now: Date) async throws -> Bool {
        let result = try await db.query(
            """
            UPDATE oauth_login_flows SET sms_sent_at = $2
            WHERE flow_hash = $1 AND sms_sent_at IS NULL AND completed_at IS NULL AND expires_at > $2
            RETURNING 1
            """, [hash, now])
        return result.rowCount == 1
    }

    /// Ends the flow for good: true for exactly one caller, and only while it has not expired.
    static func complete(_ db: any SQLRunner, hash: [UInt8], now: Date) async throws -> Bool {
        let result = try await db.query(
            """
            UPDATE oauth_login_flows SET completed_at = $2, sealed_credential = NULL, sealed_challenge = NULL
            WHERE flow_hash = $1 AND completed_at IS NULL AND expires_at > $2
            RETURNING 1
            """, [hash, now])
        return result.rowCount == 1
    }

    private static func sealedColumns(
        _ flow: LoginFlow, keyRing: KeyRing
    ) throws -> (credential: [UInt8]?, factors: String?, challenge: [UInt8]?) {
        let credential = try flow.credential.map { try keyRing.seal(Array($0.utf8), associatedData: flow.hash) }
        let factors =
            flow.factors.isEmpty
            ? nil : try JSONValueEncoder().encode(flow.factors.map(StoredEnrollment.init)).description
        let challenge = try flow.challenge.map {
            try keyRing.seal(try JSONValueEncoder().encode($0).serialized(), associatedData: flow.hash)
        }
        return (credential, factors, challenge)
    }
}

/// An enrolment of a flow's choice as the `factors` column stores it: the API object and, beside it, the id of its
/// factor, which the API object does not carry (``MFAEnrollment/factorID``).
private struct StoredEnrollment: Codable {
    var factor: String
    var enrollment: MFAEnrollment

    init(_ enrollment: MFAEnrollment) {
        factor = enrollment.factorID ?? ""
        self.enrollment = enrollment
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        factor = try container.decode(String.self, forKey: .factor)
        enrollment = try container.decode(MFAEnrollment.self, forKey: .enrollment)
        enrollment.factorID = factor
    }
}
