#!/usr/bin/env bash
# The fleet test (make fleet-test): three `tessera serve` behind HAProxy on the dev cluster's test database, the
# end-to-end flows through it, then a rolling restart and a kill -9 under load (Tests/fleet). Output and the
# servers' and HAProxy's logs in test-output/fleet/.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

bin=${TESSERA_BIN:-$TESSERA_ROOT/.build/debug/tessera}
[[ -x $bin ]] || die "no server binary at $bin (run 'swift build' first)"
command -v haproxy >/dev/null 2>&1 || die "haproxy is missing (run 'make deps')"
require_dev_keys
rm -rf "$TESSERA_ROOT/test-output/fleet"
PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 \
    TESSERA_BIN="$bin" \
    TESSERA_TEST_DATABASE_URL="${TESSERA_TEST_DATABASE_URL:-$("$TESSERA_ROOT/scripts/dev-db.sh" url tessera_test)}" \
    TESSERA_E2E_MASTER_KEY_FILE="$DEV_MASTER_KEY_FILE" \
    TESSERA_ADMIN_KEY="$(<"$DEV_ADMIN_KEY_FILE")" \
    python3 -m pytest -q -s -p no:cacheprovider "$TESSERA_ROOT/Tests/fleet" "$@"
