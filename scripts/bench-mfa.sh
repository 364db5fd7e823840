#!/usr/bin/env bash
# The MFA benchmark (make bench): mfaSignIn.finalize with a TOTP code, the built-in factor in process against the
# same factor run as a factor service (`tessera factor serve totp --id totp-remote`), measured in one run.
#
# It builds `tessera` (release) and the load generator Benchmarks/ OAuthLoad, makes a fresh database
# tessera_mfabench on the durable benchmark cluster (scripts/lib.sh start_bench_cluster), starts `tessera serve --loops 2` on free ports (--app-verification
# disabled-for-testing, the dev master key, a fresh random admin key, no per-client password limit: every sign-in
# comes from 127.0.0.1) and `tessera factor serve totp --id
# totp-remote --loops 1` with a fresh random secret, then `OAuthLoad mfa` registers the factor service, makes a
# tenant for each side (A: in-process TOTP, 10 adjacent intervals; B: the factor service, whose TOTP uses its
# default window of 5), creates and enrols the users, and for each round (in-process, then remote) issues the
# pending credentials first and then measures a warm-up and the headline concurrency (16). Each finalize spends
# one pending credential, made by a password sign-in (scrypt, ~20 a second on 2 cores), so a measurement runs for
# BENCH_SECONDS or until the credentials prepared for it (about BENCH_MFA_OPERATIONS) run out, whichever comes
# first; the report says which. Target: remote ops/s >= 0.7 x in-process ops/s (reported as BELOW TARGET, not as a
# failure). Each measurement also records the server's, the factor service's, the database backends' and the
# generator's CPU time and the database transactions per operation.
# It writes bench-results/mfa.txt (the table), mfa.csv, mfa.jsonl (the generator's raw output), mfa-server.log and
# mfa-factor.log, and stops and drops everything it started and made on exit.
#
# Environment:
#   BENCH_SECONDS          the longest a measurement runs (default 10)
#   BENCH_WARMUP           seconds of unmeasured load before each measurement (default 1; 0 = none)
#   BENCH_CONCURRENCY      the headline concurrency (default 16)
#   BENCH_LOOPS            the server's and the generator's event loops (default 2; the factor service has 1)
#   BENCH_MFA_OPERATIONS   the finalizes prepared for each measurement (default 1000; more costs ~50 ms of
#                          sign-in each, and a round's credentials must be spent within their 600 s)
#   BENCH_MFA_ROUNDS       rounds of (in-process, remote) measurements (default 2)
#   SWIFT, SCRATCH         the swift command, the server's build folder (.build)
#   BENCH_TESSERA          a tessera binary to measure instead of building one (before and after, as in
#                          scripts/bench-oauth.sh)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

seconds=${BENCH_SECONDS:-10}
warmup=${BENCH_WARMUP:-1}
headline=${BENCH_CONCURRENCY:-16}
loops=${BENCH_LOOPS:-2}
operations=${BENCH_MFA_OPERATIONS:-1000}
rounds=${BENCH_MFA_ROUNDS:-2}
swift=${SWIFT:-swift}
scratch=${SCRATCH:-$TESSERA_ROOT/.build}
[[ $scratch == /* ]] || scratch=$TESSERA_ROOT/$scratch
generator_scratch=$TESSERA_ROOT/.build-benchmarks
results_dir=$TESSERA_ROOT/bench-results
server_database=tessera_mfabench

for setting in seconds warmup headline loops operations rounds; do
    [[ ${!setting} =~ ^[0-9]+$ ]] || die "$setting must be a whole number, not '${!setting}'"
done
((seconds > 0 && headline > 0 && loops > 0 && operations > 0 && rounds > 0)) \
    || die "BENCH_SECONDS, BENCH_CONCURRENCY, BENCH_LOOPS, BENCH_MFA_OPERATIONS and BENCH_MFA_ROUNDS must be at least 1"
require_dev_keys
start_bench_cluster

mkdir -p "$results_dir"
work=$(mktemp -d "${TMPDIR:-/tmp}/tessera-mfabench.XXXXXX")
server_pid=
factor_pid=
dev_db=$TESSERA_ROOT/scripts/dev-db.sh

cleanup() {
    if [[ -n $factor_pid ]] && kill -0 "$factor_pid" 2>/dev/null; then
        stop_process "$factor_pid" 15 || true
    fi
    if [[ -n $server_pid ]] && kill -0 "$server_pid" 2>/dev/null; then
        stop_process "$server_pid" 15 || true
    fi
    "$dev_db" psql postgres -qc "DROP DATABASE IF EXISTS $server_database WITH (FORCE)" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

bin=$(tessera_release_binary "$swift" "$scratch")
load=$(oauth_load_binary "$swift" "$generator_scratch")

server_url=$(fresh_database "$server_database")

admin_key_file=$work/admin-key
factor_secret_file=$work/factor-secret
write_admin_key "$admin_key_file"
(umask 077 && python3 -c 'import os, base64
print(base64.urlsafe_b64encode(os.urandom(32)).rstrip(b"=").decode())' >"$factor_secret_file")
factor_port=$(free_port)
server_log=$results_dir/mfa-server.log
factor_log=$results_dir/mfa-factor.log

say "starting tessera factor serve totp --id totp-remote --loops 1 on 127.0.0.1:$factor_port"
"$bin" factor serve totp --id totp-remote --listen "127.0.0.1:$factor_port" --secret-file "$factor_secret_file" \
    --loops 1 >"$factor_log" 2>&1 </dev/null &
factor_pid=$!
start_bench_server "$server_log" 60 "$server_url" "$admin_key_file" "$loops" \
    --max-password-attempts-per-client 1000000 -- "$bin"
wait_http "http://127.0.0.1:$factor_port/healthz" 30 "$factor_pid" \
    || die "the factor service did not become healthy (see $factor_log)"

# cpu_steal_ticks: prints the machine's stolen and total CPU ticks so far (/proc/stat): on a virtual
# machine, time the hypervisor gave to others, which makes every figure of the run smaller.
cpu_steal_ticks() {
    awk '/^cpu / { total = 0; for (i = 2; i <= NF; i++) total += $i; print $9, total }' /proc/stat
}

raw=$results_dir/mfa.jsonl
: >"$raw"
read -r steal_start total_start < <(cpu_steal_ticks)
say "measuring mfaSignIn.finalize: $rounds rounds of in-process and remote TOTP, $headline virtual users," \
    "at most ${seconds}s or $operations prepared finalizes each"
status=0
"$load" mfa --admin "127.0.0.1:$admin_port" --admin-key-file "$admin_key_file" --target "127.0.0.1:$port" \
    --factor-endpoint "http://127.0.0.1:$factor_port/rpc" --factor-secret-file "$factor_secret_file" \
    --concurrency "$headline" --seconds "$seconds" --warmup "$warmup" --operations "$operations" \
    --rounds "$rounds" --loops "$loops" --server-pid "$server_pid" --factor-pid "$factor_pid" \
    --database-url "$server_url" >>"$raw" \
    || { status=$?; say "error: the load generator failed (see $server_log and $factor_log)"; }
read -r steal_end total_end < <(cpu_steal_ticks)
steal_percent=$(awk -v s=$((steal_end - steal_start)) -v t=$((total_end - total_start)) \
    'BEGIN { printf "%.1f", (t > 0) ? 100 * s / t : 0 }')
stop_process "$factor_pid" 15 || say "the factor service did not stop cleanly (see $factor_log)"
factor_pid=
stop_process "$server_pid" 15 || say "tessera did not stop cleanly (see $server_log)"
server_pid=

commit=$(git -C "$TESSERA_ROOT" rev-parse --short HEAD 2>/dev/null || printf unknown)
[[ -z ${BENCH_TESSERA:-} ]] || commit="$commit (server: $BENCH_TESSERA)"
title="MFA benchmark, $(date -u +%Y-%m-%dT%H:%M:%SZ), commit $commit, $(nproc) cores, server --loops $loops,"
title+=" factor service --loops 1, at most ${seconds}s or $operations finalizes per measurement, ${warmup}s warm-ups"
python3 "$TESSERA_ROOT/scripts/bench-mfa-report.py" \
    --raw "$raw" --out "$results_dir/mfa" --headline "$headline" --seconds "$seconds" \
    --steal-percent "$steal_percent" --title "$title"
say "results written to $results_dir/mfa.txt and mfa.csv"
((status == 0)) || die "no (or partial) results: the load generator failed"
