#!/usr/bin/env bash
# The first five minutes (make demo): runs the development server as `make run` does, then sets up a demo tenant,
# user and public client with scripts/demo.py and prints the URL to open and the command that turns the code
# into tokens. The server keeps running afterwards, until Ctrl-C. It only ever uses the private development
# database and keys, on loopback listeners: never a production set-up.
#
# Environment: TESSERA_BIN (default .build/debug/tessera); TESSERA_LISTEN and TESSERA_ADMIN_LISTEN (defaults
# 127.0.0.1:8080 and 127.0.0.1:8081) must be loopback addresses.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

bin=${TESSERA_BIN:-$TESSERA_ROOT/.build/debug/tessera}
[[ -x $bin ]] || die "no server binary at $bin (run 'make demo')"
require_dev_keys
public=${TESSERA_LISTEN:-127.0.0.1:8080}
admin=${TESSERA_ADMIN_LISTEN:-127.0.0.1:8081}
for listener in "$public" "$admin"; do
    [[ $listener == 127.* || $listener == "[::1]:"* || $listener == localhost:* ]] \
        || die "the demo only runs on loopback listeners, not $listener"
done

mail_port=$(free_port)
"$bin" serve \
    --database-url "$("$TESSERA_ROOT/scripts/dev-db.sh" url tessera)" \
    --master-key-file "$DEV_MASTER_KEY_FILE" \
    --bootstrap-admin-key "$(<"$DEV_ADMIN_KEY_FILE")" \
    --listen "$public" --admin-listen "$admin" --issuer "http://$public" \
    --email-webhook-url "http://127.0.0.1:$mail_port/mail" \
    "$@" 2> "$TESSERA_DATA/demo-server.log" &
server=$!
trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true' EXIT INT TERM
wait_http "http://$public/healthz" 30 "$server" || die "the server did not start; its log: $TESSERA_DATA/demo-server.log"

echo "The server's log: $TESSERA_DATA/demo-server.log. Ctrl-C stops the demo and the server."
python3 "$TESSERA_ROOT/scripts/demo.py" --public "http://$public" --admin "http://$admin" \
    --admin-key-file "$DEV_ADMIN_KEY_FILE" --mail-port "$mail_port"
