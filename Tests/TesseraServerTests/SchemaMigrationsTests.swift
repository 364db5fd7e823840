import TesseraCrypto
import TesseraPostgres
import TesseraServer
import Testing

/// Existing databases record each applied migration by module and version, so moving code between targets must
/// leave ``SchemaMigrations/all`` as it is: the same modules, versions, names and order, and applied migrations
/// are never rewritten (their SQL stays byte for byte). A new migration is added to both lists with the code that
/// adds it.
@Suite struct SchemaMigrationsTests {
    @Test func theModulesVersionsAndOrderAreThoseAppliedBefore() {
        #expect(
            SchemaMigrations.all.map(\.label) == [
                "core/0001_identity", "core/0002_client_token_families", "core/0003_rate_limits",
                "core/0004_retention_indexes", "core/0005_grants_without_parent_locks",
                "core/0006_refresh_tokens_in_families",
                "multifactor/0001_router", "multifactor/0002_factor_state",
                "multifactor/0003_revocation_ends_pending", "multifactor/0004_retention_indexes",
                "multifactor/0005_refusals",
                "totp/0001_secrets", "totp/0002_state_to_router",
                "phone/0001_phone_factor", "phone/0002_numbers_to_router",
                "factorservices/0001_registrations",
                "oauth/0001_clients_and_codes", "oauth/0002_login_flows_and_browser_sessions",
                "oauth/0003_codes_name_their_sign_in", "oauth/0004_sealed_codes",
                "oauth/0005_families_without_client_lock", "oauth/0006_revocation_ends_login_flows",
                "oauth/0007_revoked_access_tokens", "oauth/0008_post_logout_redirect_uris",
                "oauth/0009_sso_revocations",
            ])
    }

    /// The SHA-256 of the SQL of every migration released before this test was written (these twelve), joined by
    /// NUL bytes in order. Later migrations may come between them (a module's next version follows its last).
    @Test func theAppliedMigrationsAreNotRewritten() throws {
        let released: Set<String> = [
            "core/0001_identity", "core/0002_client_token_families", "multifactor/0001_router",
            "multifactor/0002_factor_state", "totp/0001_secrets", "totp/0002_state_to_router",
            "phone/0001_phone_factor",
            "phone/0002_numbers_to_router", "factorservices/0001_registrations", "oauth/0001_clients_and_codes",
            "oauth/0002_login_flows_and_browser_sessions", "oauth/0003_codes_name_their_sign_in",
        ]
        let sql = SchemaMigrations.all.filter { released.contains($0.label) }.map(\.sql).joined(separator: "\u{0}")
        let digest = try Digest.sha256(sql).map { byte in
            let hex = String(byte, radix: 16)
            return hex.count == 1 ? "0" + hex : hex
        }.joined()
        #expect(digest == "df114dad488db8f627a575a539276efaad48f58661415c05494658a42b12faf5")
    }
}
