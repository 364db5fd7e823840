public import TesseraCore
public import TesseraPostgres

/// The migrations of module `phone`, applied after `multifactor`'s (version 1 references `mfa_enrollments`, and
/// version 2 fills the columns `multifactor` version 2 added). They were written when one target held the SMS
/// factor, phone sign-in and the code issuing both share; a migration cannot be split once applied, so module
/// `phone` stays one list, here in the module both others depend on, and `SchemaMigrations` (TesseraServer)
/// lists it right after the factor plugins' migrations, where the SMS factor's descriptor used to put it. Owners of
/// what they create, now:
/// - `phone_enrollments` (version 1, dropped in version 2): the number of each SMS enrolment, the SMS factor's
///   (`PhoneFactor`); version 2 keeps it as the enrolment's `unique_key` in the router's `mfa_enrollments`
///   instead, with the masked form, so the factor has no table of its own;
/// - `phone_sign_in_sessions`: phone sign-in's (`PhoneSignIn`): the `sessionInfo` of
///   `accounts.sendVerificationCode` (stored as its SHA-256) with the number, the code's keyed digest, the
///   lifetime and the attempt count;
/// - `sms_sends` and `sms_daily_usage`: this module's, what the send limits count, and `sms_reserve_send`, which
///   checks and records one send atomically (see ``SMSSendLimits``).
///
/// Applied migrations are never rewritten: a change to any of these tables is a new version of module `phone`.
public enum PhoneMigrations {
    /// The migrations of module `phone`, in order.
    public static let all: [Migration] = [
        Migration(module: "phone", version: 1, name: "phone_factor", sql: tables + reserveFunction),
        Migration(
            module: "phone", version: 2, name: "numbers_to_router",
            sql: """
                UPDATE mfa_enrollments e SET unique_key = p.phone_number,
                        masked_info = jsonb_build_object('phoneInfo',
                            regexp_replace(left(p.phone_number, -4), '[0-9]', '*', 'g') || right(p.phone_number, 4))
                    FROM phone_enrollments p WHERE p.enrollment_id = e.enrollment_id;
                DROP TABLE phone_enrollments;
                """),
    ]

    /// When the phone tables' rows go (docs/operations.md): a sign-in session past its expiry can no longer be
    /// used; sends and daily counts are kept for ``SMSSendLimits/retention`` as a record of abuse (sends also prune
    /// them as they go, but an idle server would not).
    public static let retention: [RetentionRule] = [
        .expiring("phone_sign_in_sessions", time: "expires_at"),
        .expiring("sms_sends", time: "sent_at", grace: .seconds(SMSSendLimits.retention)),
        .expiring("sms_daily_usage", time: "day", grace: .seconds(SMSSendLimits.retention)),
    ]

    private static let tables = """
        CREATE TABLE phone_enrollments (
            enrollment_id text PRIMARY KEY REFERENCES mfa_enrollments ON DELETE CASCADE,
            user_id text NOT NULL REFERENCES users ON DELETE CASCADE,
            phone_number text NOT NULL,
            UNIQUE (user_id, phone_number)
        );
        CREATE INDEX phone_enrollments_by_number ON phone_enrollments (phone_number);

        CREATE TABLE phone_sign_in_sessions (
            handle_hash bytea PRIMARY KEY,
            tenant_id text REFERENCES tenants ON DELETE CASCADE,
            phone_number text NOT NULL,
            code_digest bytea NOT NULL,
            expires_at timestamptz NOT NULL,
            attempts integer NOT NULL DEFAULT 0
        );
        CREATE INDEX phone_sign_in_sessions_by_expiry ON phone_sign_in_sessions (expires_at);

        CREATE TABLE sms_sends (
            send_id bigserial PRIMARY KEY,
            phone_number text NOT NULL,
            client_key text,
            sent_at timestamptz NOT NULL
        );
        CREATE INDEX sms_sends_by_number ON sms_sends (phone_number, sent_at);
        CREATE INDEX sms_sends_by_client ON sms_sends (client_key, sent_at) WHERE client_key IS NOT NULL;
        CREATE INDEX sms_sends_by_time ON sms_sends (sent_at);

        CREATE TABLE sms_daily_usage (
            tenant_key text NOT NULL,
            day date NOT NULL,
            sends integer NOT NULL,
            PRIMARY KEY (tenant_key, day)
        );

        """

    /// Checks the three send limits for one SMS and, when all pass, records the send; returns which limit refused
    /// (`number`, `client` or `quota`) and when a retry may succeed, or two nulls when the send is recorded. Runs
    /// as one statement, so it is atomic; advisory locks on the number and the client serialize concurrent sends
    /// to either across the fleet, so a sliding window can never be overrun. Records older than the retention
    /// period are pruned as it goes, a hundred at a time.
    private static let reserveFunction = """
        CREATE FUNCTION sms_reserve_send(
            p_tenant_key text, p_number text, p_client_key text, p_now timestamptz, p_window interval,
            p_per_number integer, p_per_client integer, p_daily_quota integer, p_retention interval
        ) RETURNS TABLE (refused_by text, retry_at timestamptz) LANGUAGE plpgsql AS $$
        DECLARE
            v_edge timestamptz;
            v_day date := (p_now AT TIME ZONE 'UTC')::date;
            v_next_day timestamptz := ((p_now AT TIME ZONE 'UTC')::date + 1)::timestamp AT TIME ZONE 'UTC';
        BEGIN
            PERFORM pg_advisory_xact_lock(hashtextextended('sms-number:' || p_number, 0));
            IF p_client_key IS NOT NULL THEN
                PERFORM pg_advisory_xact_lock(hashtextextended('sms-client:' || p_client_key, 0));
            END IF;
            SELECT sent_at INTO v_edge FROM sms_sends
                WHERE phone_number = p_number AND sent_at > p_now - p_window
                ORDER BY sent_at DESC OFFSET p_per_number - 1 LIMIT 1;
            IF FOUND THEN
                RETURN QUERY SELECT 'number'::text, v_edge + p_window;
                RETURN;
            END IF;
            IF p_client_key IS NOT NULL THEN
                SELECT sent_at INTO v_edge FROM sms_sends
                    WHERE client_key = p_client_key AND sent_at > p_now - p_window
                    ORDER BY sent_at DESC OFFSET p_per_client - 1 LIMIT 1;
                IF FOUND THEN
                    RETURN QUERY SELECT 'client'::text, v_edge + p_window;
                    RETURN;
                END IF;
            END IF;
            IF p_daily_quota < 1 THEN
                RETURN QUERY SELECT 'quota'::text, v_next_day;
                RETURN;
            END IF;
            INSERT INTO sms_daily_usage AS u (tenant_key, day, sends) VALUES (p_tenant_key, v_day, 1)
                ON CONFLICT (tenant_key, day) DO UPDATE SET sends = u.sends + 1 WHERE u.sends < p_daily_quota;
            IF NOT FOUND THEN
                RETURN QUERY SELECT 'quota'::text, v_next_day;
                RETURN;
            END IF;
            INSERT INTO sms_sends (phone_number, client_key, sent_at) VALUES (p_number, p_client_key, p_now);
            DELETE FROM sms_sends WHERE send_id IN (
                SELECT send_id FROM sms_sends WHERE sent_at < p_now - p_retention ORDER BY sent_at LIMIT 100);
            DELETE FROM sms_daily_usage WHERE day < ((p_now - p_retention) AT TIME ZONE 'UTC')::date;
            RETURN QUERY SELECT NULL::text, NULL::timestamptz;
        END
        $$;
        """
}
