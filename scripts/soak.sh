#!/usr/bin/env bash
# The soak (make soak): three `tessera serve` behind HAProxy (Tests/fleet/fleet.py) on a fresh database
# tessera_soak of the durable benchmark cluster (scripts/lib.sh start_bench_cluster), under a steady load for
# SOAK_MINUTES: the native-app cycle (authorize with SSO -> code -> token, PKCE, a public client with a loopback
# redirect) of a fixed pool of users signed in once, and at a low steady rate anonymous sign-in pages that are
# never finished (login flows), wrong passwords (login_failures) and replayed codes (refused). Every minute it
# prints the cycles and failures of the minute, the database's size, each server's resident memory and the live
# rows of each table that holds expiring state; at the end a verdict (Tests/fleet/soak.py says what is judged):
# ephemeral tables do not grow once their rows expire, token families and refresh tokens grow only by what the
# load legitimately created, the database grows by no more than that, and each server stays flat under 100 MiB.
# A target missed is reported as BELOW TARGET, not as a failure; the exit status is non-zero only when the soak
# itself broke (more than 1 % of a kind of request failed, a server died). It writes bench-results/soak.csv
# (every number) and soak.txt (the table and the verdict), keeps the servers' and HAProxy's logs in
# test-output/soak/, and stops everything it started and drops the database on exit.
#
# Environment:
#   SOAK_MINUTES   how long the load runs, in whole minutes (default 15; the verdict on size and memory needs at
#                  least 12: login flows live 10 minutes)
#   SOAK_RATE      native-app cycles a second, held steady (default 30)
#   SOAK_REFRESH   1: the load's client has the refresh_token grant, so each cycle legitimately creates a token
#                  family and a refresh token; 0 (default): it has not, so a cycle must create neither (only the
#                  replaying user's sign-ins do, one every 30 s)
#   SOAK_USERS     the virtual users, each signed in once (default 20)
#   TESSERA_BIN    the server binary (default .build/debug/tessera; make soak builds it and passes it)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

minutes=${SOAK_MINUTES:-15}
rate=${SOAK_RATE:-30}
refresh=${SOAK_REFRESH:-0}
users=${SOAK_USERS:-20}
bin=${TESSERA_BIN:-$TESSERA_ROOT/.build/debug/tessera}
database=tessera_soak
results_dir=$TESSERA_ROOT/bench-results
output=$TESSERA_ROOT/test-output/soak
dev_db=$TESSERA_ROOT/scripts/dev-db.sh

[[ $minutes =~ ^[1-9][0-9]{0,4}$ ]] || die "SOAK_MINUTES must be a whole number of minutes from 1, not '$minutes'"
[[ $rate =~ ^[1-9][0-9]{0,4}$ ]] || die "SOAK_RATE must be a whole number of cycles a second from 1, not '$rate'"
[[ $refresh == 0 || $refresh == 1 ]] || die "SOAK_REFRESH must be 0 or 1, not '$refresh'"
[[ $users =~ ^[1-9][0-9]{0,3}$ ]] || die "SOAK_USERS must be a whole number of users from 1, not '$users'"
[[ -x $bin ]] || die "no server binary at $bin (run 'make build', or set TESSERA_BIN)"
command -v haproxy >/dev/null 2>&1 || die "haproxy is missing (run 'make deps')"
command -v psql >/dev/null 2>&1 || die "psql is missing (run 'make deps')"
require_dev_keys
start_bench_cluster

soak_pid=
cleanup() {
    if [[ -n $soak_pid ]] && kill -0 "$soak_pid" 2>/dev/null; then
        stop_process "$soak_pid" 40 || true
    fi
    # The servers and HAProxy the soak started, should it have died without stopping them.
    local pid
    if [[ -f $output/pids ]]; then
        while read -r pid; do
            if [[ -r /proc/$pid/cmdline ]] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF -e "/$database" -e "$output/"
            then
                kill -TERM "$pid" 2>/dev/null || true
            fi
        done <"$output/pids"
    fi
    "$dev_db" psql postgres -qc "DROP DATABASE IF EXISTS $database WITH (FORCE)" >/dev/null 2>&1 || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM

rm -rf "$output"
mkdir -p "$output" "$results_dir"
PGOPTIONS="-c client_min_messages=warning" \
    "$dev_db" psql postgres -qc "DROP DATABASE IF EXISTS $database WITH (FORCE)" >/dev/null
"$dev_db" psql postgres -qc "CREATE DATABASE $database" >/dev/null
url=$("$dev_db" url "$database")

commit=$(git -C "$TESSERA_ROOT" rev-parse --short HEAD 2>/dev/null || printf unknown)
title="Soak, $(date -u +%Y-%m-%dT%H:%M:%SZ), commit $commit, $(nproc) cores, $bin, durable cluster,"
title+=" SOAK_MINUTES=$minutes SOAK_RATE=$rate SOAK_REFRESH=$refresh SOAK_USERS=$users"
say "$title"
# In the background, so that the traps run at once on an interrupt (and stop it) rather than after it.
python3 "$TESSERA_ROOT/Tests/fleet/soak.py" --binary "$bin" --database-url "$url" \
    --master-key-file "$DEV_MASTER_KEY_FILE" --admin-key-file "$DEV_ADMIN_KEY_FILE" \
    --minutes "$minutes" --rate "$rate" --refresh "$refresh" --users "$users" \
    --results "$results_dir" --title "$title" </dev/null &
soak_pid=$!
status=0
wait "$soak_pid" || status=$?
soak_pid=
((status == 0)) || die "the soak broke (exit $status; logs in $output)"
say "results written to $results_dir/soak.txt and soak.csv; logs in $output"
