#!/usr/bin/env bash
# Runs the development server in the foreground against the dev database (make run).
# It expects the database to be started and the binary and keys to exist: `make run` does
# all of that first. Extra arguments go to `tessera serve`.
#
# Environment: TESSERA_BIN (default .build/debug/tessera); TESSERA_LISTEN and
# TESSERA_ADMIN_LISTEN, read by the server itself, also change the URLs printed here.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

bin=${TESSERA_BIN:-$TESSERA_ROOT/.build/debug/tessera}
[[ -x $bin ]] || die "no server binary at $bin (run 'swift build' or 'make run')"
require_dev_keys

database_url=$("$TESSERA_ROOT/scripts/dev-db.sh" url tessera)
admin_key=$(<"$DEV_ADMIN_KEY_FILE")

# Prints the URL of a listener given as HOST:PORT, or "off" for `none`.
listener_url() {
    if [[ $1 == none ]]; then
        printf 'off\n'
    else
        printf 'http://%s\n' "$1"
    fi
}

cat <<EOF
Tessera development server
  public listener  $(listener_url "${TESSERA_LISTEN:-127.0.0.1:8080}")   POST /rpc, /oauth2/*, /healthz
  admin listener   $(listener_url "${TESSERA_ADMIN_LISTEN:-127.0.0.1:8081}")   POST /rpc, /healthz, /readyz, /metrics
  admin key        $admin_key
                   (send it as "Authorization: Bearer <key>" to the admin listener)
  database         $database_url
Stop with Ctrl-C.
EOF

exec "$bin" serve \
    --database-url "$database_url" \
    --master-key-file "$DEV_MASTER_KEY_FILE" \
    --bootstrap-admin-key "$admin_key" \
    "$@"
