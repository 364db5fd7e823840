/// When the core module's short-lived rows go (docs/operations.md lists every table's rule).
public enum CoreRetention {
    /// The rules of the core tables.
    public static let rules: [RetentionRule] = [
        // A verification link past its expiry can no longer be used.
        .expiring("oob_codes", time: "expires_at"),
        // A password-failure window counts for 15 minutes from its start.
        .expiring("login_failures", time: "window_start", grace: .seconds(15 * 60)),
        // A rate-limit window counts for at most the longest window.
        .expiring("rate_limits", time: "window_start", grace: .seconds(RateLimit.longestWindow)),
        // A refresh token past its expiry is refused whatever its row says, used or not.
        .expiring("refresh_tokens", time: "expires_at"),
        // A token family outlives its last refresh token (a row of refresh_tokens, or the one in its own row) by
        // the longest access-token lifetime (a day), since introspection reads the family of an access token; its
        // browser sessions (12 h) are long gone by then. ($1 is now less the grace: two days.)
        .expiring(
            "token_families", time: "created_at", grace: .seconds(2 * 86_400),
            where: """
                NOT EXISTS (SELECT 1 FROM refresh_tokens r WHERE r.family_id = token_families.family_id)
                    AND (refresh_expires_at IS NULL OR refresh_expires_at < $1 + interval '1 day')
                """),
    ]
}
