#!/usr/bin/env bash
# End-to-end tests: starts the built server on free ports against the `tessera_test`
# database, waits for /healthz on both listeners, runs `python3 -m pytest -q Tests/e2e`,
# then stops the server with SIGTERM and checks that it exits 0 in time.
# Extra arguments go to pytest (e.g. `scripts/e2e.sh -k healthz`).
#
# The server runs as production would, with app verification enforced, so that real
# numbers get SMS. E-mail and SMS go to webhooks on two more free ports, where the tests
# run receivers (fixtures `mailbox` and `smsbox`). 127.0.0.1 is a trusted proxy, so that
# each test can present its own client IP in `X-Forwarded-For`: the SMS send limit per
# client IP would otherwise be shared by the whole suite, and by earlier runs against the
# same database within the hour.
#
# It expects the dev database to run and the keys to exist (`make test` and `make e2e`
# see to both). The server's log goes to test-output/e2e-server.log.
#
# Environment:
#   TESSERA_BIN                 the server binary (default .build/debug/tessera)
#   TESSERA_TEST_DATABASE_URL   the database (default: the dev cluster's tessera_test)
#   E2E_START_TIMEOUT           seconds to wait for /healthz (default 60: migrations run first)
#   E2E_STOP_TIMEOUT            seconds the server has to exit after SIGTERM (default 15)
#   E2E_PORT, E2E_ADMIN_PORT    fixed ports instead of free ones picked by the kernel
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

bin=${TESSERA_BIN:-$TESSERA_ROOT/.build/debug/tessera}
start_timeout=${E2E_START_TIMEOUT:-60}
stop_timeout=${E2E_STOP_TIMEOUT:-15}
output_dir=$TESSERA_ROOT/test-output
server_log=$output_dir/e2e-server.log

[[ -x $bin ]] || die "no server binary at $bin (run 'swift build' first)"
require_dev_keys
command -v python3 >/dev/null 2>&1 || die "python3 is missing (run 'make deps')"

database_url=${TESSERA_TEST_DATABASE_URL:-$("$TESSERA_ROOT/scripts/dev-db.sh" url tessera_test)}
admin_key=$(<"$DEV_ADMIN_KEY_FILE")
port=${E2E_PORT:-$(free_port)}
admin_port=${E2E_ADMIN_PORT:-$(free_port)}
while [[ $admin_port == "$port" ]]; do
    admin_port=$(free_port)
done
# The e-mail webhook: the tests run a receiver on this port (fixture `mailbox`).
mail_port=$(free_port)
while [[ $mail_port == "$port" || $mail_port == "$admin_port" ]]; do
    mail_port=$(free_port)
done
# The SMS webhook: the tests run a receiver on this port (fixture `smsbox`).
sms_port=$(free_port)
while [[ $sms_port == "$port" || $sms_port == "$admin_port" || $sms_port == "$mail_port" ]]; do
    sms_port=$(free_port)
done

mkdir -p "$output_dir"
server_pid=

show_log_tail() {
    say "last lines of $server_log:"
    tail -n 40 "$server_log" >&2 || true
}

cleanup() {
    if [[ -n $server_pid ]] && kill -0 "$server_pid" 2>/dev/null; then
        stop_process "$server_pid" 5 || true
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

say "starting $bin on 127.0.0.1:$port (public) and 127.0.0.1:$admin_port (admin)"
"$bin" serve \
    --database-url "$database_url" \
    --listen "127.0.0.1:$port" \
    --admin-listen "127.0.0.1:$admin_port" \
    --issuer "http://127.0.0.1:$port" \
    --master-key-file "$DEV_MASTER_KEY_FILE" \
    --bootstrap-admin-key "$admin_key" \
    --app-verification enforced \
    --email-webhook-url "http://127.0.0.1:$mail_port/mail" \
    --sms-webhook-url "http://127.0.0.1:$sms_port/sms" \
    --trusted-proxy 127.0.0.1 \
    --retention-interval 0 \
    >"$server_log" 2>&1 </dev/null &
server_pid=$!

if ! wait_http "http://127.0.0.1:$port/healthz" "$start_timeout" "$server_pid" \
    || ! wait_http "http://127.0.0.1:$admin_port/healthz" "$start_timeout" "$server_pid"; then
    show_log_tail
    die "the server did not become healthy"
fi

failures=()
pytest_status=0
# Only pytest's own plugins: what else happens to be installed must not change the run.
PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 \
    TESSERA_URL="http://127.0.0.1:$port" \
    TESSERA_ADMIN_URL="http://127.0.0.1:$admin_port" \
    TESSERA_ADMIN_KEY="$admin_key" \
    TESSERA_E2E_MAIL_PORT="$mail_port" \
    TESSERA_E2E_SMS_PORT="$sms_port" \
    TESSERA_E2E_MASTER_KEY_FILE="$DEV_MASTER_KEY_FILE" \
    TESSERA_BIN="$bin" \
    TESSERA_TEST_DATABASE_URL="$database_url" \
    TESSERA_DEV_DB="$TESSERA_ROOT/scripts/dev-db.sh" \
    python3 -m pytest -q "$TESSERA_ROOT/Tests/e2e" "$@" || pytest_status=$?
case $pytest_status in
    0) ;;
    5) failures+=("pytest collected no tests (exit 5)") ;;
    *) failures+=("pytest failed (exit $pytest_status)") ;;
esac

if ! kill -0 "$server_pid" 2>/dev/null; then
    stop_status=0
    wait "$server_pid" || stop_status=$?
    failures+=("the server exited during the tests with status $stop_status")
else
    started=$SECONDS
    stop_status=0
    stop_process "$server_pid" "$stop_timeout" || stop_status=$?
    case $stop_status in
        0) say "the server stopped on SIGTERM with status 0 in $((SECONDS - started)) s" ;;
        124) failures+=("the server did not exit within $stop_timeout s of SIGTERM") ;;
        *) failures+=("the server exited with status $stop_status after SIGTERM, not 0") ;;
    esac
fi
server_pid=

if ((${#failures[@]} > 0)); then
    show_log_tail
    for failure in "${failures[@]}"; do
        say "FAILED: $failure"
    done
    exit 1
fi
say "end-to-end tests passed; server log in $server_log"
