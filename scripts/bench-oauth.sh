#!/usr/bin/env bash
# The OAuth load test (make bench): the native-app cycle, refresh-token rotation and
# client_credentials against a release server, next to the pgbench token-cycle ceiling.
#
# It builds `tessera` (release) and the load generator Benchmarks/ OAuthLoad, makes a fresh
# database tessera_oauthbench on the durable benchmark cluster (scripts/lib.sh start_bench_cluster), starts `tessera serve --loops 2` on free ports
# (--app-verification disabled-for-testing, the dev master key, a fresh random admin key), creates
# the users and clients through the admin RPC, and for each scenario measures the headline
# concurrency (16, like pgbench -c 16) and a sweep of concurrencies for the plot, each after a
# warm-up. The ceiling is pgbench running ../shared/bench/pg_token_cycle.sql before and after
# (mean), as scripts/bench-db.sh measures it, with the database's CPU per ceiling cycle for
# comparison; beside it, the floor of a one-transaction grant (pg_one_tx_cycle.sql), whose distance
# to the cycle is what Tessera's schema and server add, and once more at the cycle's own rate (pgbench -R), its
# database CPU beside the cycle's. Targets: cycles/s >= 0.5 x ceiling, cycle p99 < 20 ms at the headline concurrency
# (reported as BELOW TARGET, not as a failure). Each measurement also
# records the server's and the database backends' CPU time and the database transactions per operation.
# It writes bench-results/oauth.txt (the table), oauth.csv, oauth.jsonl (the generator's raw
# output), oauth.png (throughput and latency against concurrency) and oauth-server.log, and
# stops and drops everything it started and made on exit.
#
# Environment:
#   BENCH_SECONDS          seconds of each headline measurement and of each pgbench run (default 10)
#   BENCH_SWEEP_SECONDS    seconds of each sweep measurement (default BENCH_SECONDS / 2, at least 1)
#   BENCH_WARMUP           seconds of unmeasured load before each measurement (default 1; 0 = none)
#   BENCH_CONCURRENCY      the headline concurrency (default 16)
#   BENCH_SWEEP            the sweep's concurrencies (default "1 2 4 8 16 32 64"; "" = no sweep)
#   BENCH_SCENARIOS        which scenarios (default "cycle refresh client_credentials")
#   BENCH_LOOPS            the server's and the generator's event loops (default 2)
#   SHARED, SWIFT, SCRATCH the shared folder (../shared), the swift command, the server's build folder (.build)
#   BENCH_TESSERA          a tessera binary to measure instead of building one (say, a copy of an earlier
#                          commit's release build, to compare before and after in one session)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

shared=${SHARED:-$TESSERA_ROOT/../shared}
seconds=${BENCH_SECONDS:-10}
sweep_seconds=${BENCH_SWEEP_SECONDS:-}
warmup=${BENCH_WARMUP:-1}
headline=${BENCH_CONCURRENCY:-16}
sweep=${BENCH_SWEEP-1 2 4 8 16 32 64}
scenarios=${BENCH_SCENARIOS:-cycle refresh client_credentials}
loops=${BENCH_LOOPS:-2}
swift=${SWIFT:-swift}
scratch=${SCRATCH:-$TESSERA_ROOT/.build}
[[ $scratch == /* ]] || scratch=$TESSERA_ROOT/$scratch
generator_scratch=$TESSERA_ROOT/.build-benchmarks
results_dir=$TESSERA_ROOT/bench-results
server_database=tessera_oauthbench
ceiling_database=tessera_oauthbench_ceiling
floor_database=tessera_oauthbench_floor

[[ $seconds =~ ^[0-9]+$ ]] || die "BENCH_SECONDS must be a whole number, not '$seconds'"
[[ -n $sweep_seconds ]] || sweep_seconds=$((seconds / 2 > 0 ? seconds / 2 : 1))
for setting in sweep_seconds warmup headline loops; do
    [[ ${!setting} =~ ^[0-9]+$ ]] || die "$setting must be a whole number, not '${!setting}'"
done
((seconds > 0 && sweep_seconds > 0 && headline > 0 && loops > 0)) \
    || die "BENCH_SECONDS, BENCH_SWEEP_SECONDS, BENCH_CONCURRENCY and BENCH_LOOPS must be at least 1"
read -r -a sweep_levels <<<"$sweep"
for level in "${sweep_levels[@]}"; do
    [[ $level =~ ^[1-9][0-9]*$ ]] || die "BENCH_SWEEP holds '$level', not a whole number of at least 1"
done
read_oauth_scenarios BENCH_SCENARIOS "$scenarios"
command -v pgbench >/dev/null 2>&1 || die "pgbench is missing (run 'make deps')"
python3 -c 'import matplotlib' 2>/dev/null || die "matplotlib is missing for the plot (run 'make deps')"
require_dev_keys
start_bench_cluster

mkdir -p "$results_dir"
work=$(mktemp -d "${TMPDIR:-/tmp}/tessera-oauthbench.XXXXXX")
server_pid=
dev_db=$TESSERA_ROOT/scripts/dev-db.sh

cleanup() {
    if [[ -n $server_pid ]] && kill -0 "$server_pid" 2>/dev/null; then
        stop_process "$server_pid" 15 || true
    fi
    "$dev_db" psql postgres -qc "DROP DATABASE IF EXISTS $server_database WITH (FORCE)" >/dev/null 2>&1 || true
    "$dev_db" psql postgres -qc "DROP DATABASE IF EXISTS $ceiling_database WITH (FORCE)" >/dev/null 2>&1 || true
    "$dev_db" psql postgres -qc "DROP DATABASE IF EXISTS $floor_database WITH (FORCE)" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

bin=$(tessera_release_binary "$swift" "$scratch")
load=$(oauth_load_binary "$swift" "$generator_scratch")

ceiling_url=$(prepare_token_cycle_database "$ceiling_database" "$shared")
server_url=$(fresh_database "$server_database")

admin_key_file=$work/admin-key
write_admin_key "$admin_key_file"
server_log=$results_dir/oauth-server.log
start_bench_server "$server_log" 60 "$server_url" "$admin_key_file" "$loops" -- "$bin"

# busy_ticks: prints the machine's busy CPU ticks so far (/proc/stat: all but idle, iowait and steal).
busy_ticks() {
    awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 }' /proc/stat
}

# measure_ceiling [KIND URL]: runs a pgbench ceiling once (KIND token at the ceiling's database by default, or
# one_tx at the floor's), prints "cycles/s latency-average-ms p50-ms p99-ms database-us-per-cycle". The database's
# CPU is the machine's busy time during the run less pgbench's own (the server is idle then), so it is comparable
# with the database CPU the generator reports per cycle.
measure_ceiling() {
    local kind=${1:-token} url=${2:-$ceiling_url}
    say "measuring the pgbench $kind-cycle ceiling (${seconds}s)"
    local start end measured pgbench_cpu tick
    tick=$(getconf CLK_TCK)
    start=$(busy_ticks)
    local TIMEFORMAT='%U %S'
    { time measured=$(pgbench_token_cycle "$url" "$seconds" "$shared" "$kind"); } 2>"$work/ceiling-time" \
        || { cat "$work/ceiling-time" >&2; return 1; }
    end=$(busy_ticks)
    pgbench_cpu=$(awk '{ print $1 + $2 }' "$work/ceiling-time")
    awk -v measured="$measured" -v busy=$(((end - start))) -v tick="$tick" -v client="$pgbench_cpu" \
        -v seconds="$seconds" 'BEGIN {
            split(measured, part, " "); cycles = part[1] * seconds
            printf "%s %.0f\n", measured, (cycles > 0 ? 1e6 * (busy / tick - client) / cycles : 0) }'
}

# backend_ticks DATABASE: prints the CPU ticks its client backends have used so far (/proc/PID/stat), as the load
# generator reads the server's database.
backend_ticks() {
    local database=$1 pid ticks=0
    for pid in $("$dev_db" psql "$database" -XAtc "SELECT pid FROM pg_stat_activity
            WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid()"); do
        ticks=$((ticks + $(awk '{ sub(/.*\) /, ""); print $12 + $13 }' "/proc/$pid/stat" 2>/dev/null || echo 0)))
    done
    printf '%s\n' "$ticks"
}

# measure_floor_at RATE: runs the one-transaction floor at RATE cycles a second (pgbench -R) on a fresh floor
# database and prints "cycles/s database-us-per-cycle", the database's CPU measured as the load generator measures
# a scenario's: its client backends' CPU, read a second into the run and SECONDS later, over the cycles of that
# window (pgbench's throttled rate times its length): what the least a grant must write costs the database at the
# rate the cycle ran. A database's CPU per transaction rises as its rate falls (fewer commits share each WAL flush;
# backends sleep and wake between transactions), so this, not the floor at full speed, is what a cycle's database
# CPU compares with.
measure_floor_at() {
    local rate=$1 url pgbench_pid started ended ticks_start ticks_end tick
    url=$(prepare_token_cycle_database "$floor_database" "$shared" one_tx)
    say "measuring the one-transaction floor at $rate cycles/s (${seconds}s)"
    tick=$(getconf CLK_TCK)
    pgbench_token_cycle "$url" $((seconds + 2)) "$shared" one_tx "$rate" >"$work/floor-at-rate" &
    pgbench_pid=$!
    sleep 1
    started=$EPOCHREALTIME
    ticks_start=$(backend_ticks "$floor_database")
    sleep "$seconds"
    ticks_end=$(backend_ticks "$floor_database")
    ended=$EPOCHREALTIME
    wait "$pgbench_pid" || return 1
    awk -v c=$((ticks_end - ticks_start)) -v tick="$tick" -v started="$started" -v ended="$ended" '{
            cycles = $1 * (ended - started)
            if (cycles <= 0) exit 1
            printf "%.1f %.0f\n", $1, 1e6 * c / tick / cycles }' "$work/floor-at-rate"
}

# cpu_steal_ticks: prints the machine's stolen and total CPU ticks so far (/proc/stat): on a virtual
# machine, time the hypervisor gave to others, which makes every figure of the run smaller.
cpu_steal_ticks() {
    awk '/^cpu / { total = 0; for (i = 2; i <= NF; i++) total += $i; print $9, total }' /proc/stat
}

read -r steal_start total_start < <(cpu_steal_ticks)
measured=$(measure_ceiling) || die "the pgbench ceiling could not be measured"
read -r before before_avg before_p50 before_p99 before_db <<<"$measured"
# The floor's codes are unique per run only (random, 1 in 2e9), so each measurement gets a fresh database.
floor_url=$(prepare_token_cycle_database "$floor_database" "$shared" one_tx)
measured=$(measure_ceiling one_tx "$floor_url") || die "the one-transaction floor could not be measured"
read -r floor_before _ _ _ floor_before_db <<<"$measured"

max_users=$headline
for level in "${sweep_levels[@]}"; do ((level > max_users)) && max_users=$level; done
state_file=$work/state
say "creating $max_users users and the clients through the admin RPC"
"$load" setup --admin "127.0.0.1:$admin_port" --admin-key-file "$admin_key_file" --users "$max_users" \
    --state-file "$state_file" --loops "$loops"

# table_state: prints "grants families refresh_tokens spent_codes expired_spent_codes bytes": the token
# requests answered 200 so far (the server's own counter), the rows of the token tables (refresh tokens: the
# grants' in their family's row and the rows of refresh_tokens), the spent codes already
# past their expiry, and the bytes of every table and index of the server's database.
table_state() {
    local grants
    grants=$(curl -sf "http://127.0.0.1:$admin_port/metrics" | awk '
        /^tessera_http_requests_total\{/ && /route="\/oauth2\/token"/ && /status="200"/ { sum += $NF }
        END { printf "%d", sum }')
    printf '%s ' "$grants"
    "$TESSERA_ROOT/scripts/dev-db.sh" psql "$server_database" -XAtq -F ' ' -c "
        SELECT (SELECT count(*) FROM token_families),
            (SELECT count(*) FROM refresh_tokens) + (SELECT count(*) FROM token_families WHERE refresh_token_hash IS NOT NULL),
            (SELECT count(*) FROM oauth_spent_codes), (SELECT count(*) FROM oauth_spent_codes WHERE expires_at < now()),
            (SELECT sum(pg_total_relation_size(relid)) FROM pg_stat_user_tables)"
}

raw=$results_dir/oauth.jsonl
: >"$raw"
rows=$results_dir/oauth-rows.txt
{
    printf '# what each scenario left in the database, per token request answered 200
'
    printf '%-20s %9s %12s %12s %12s %14s %12s
' scenario grants 'families/op' 'refresh/op' 'spent codes' \
        'expired spent' 'bytes/op'
} >"$rows"
failed=()
sweep_argument=$(IFS=,; printf '%s' "${sweep_levels[*]:-none}")
for scenario in "${scenario_list[@]}"; do
    read -r grants_before families_before refresh_before _ _ bytes_before < <(table_state)
    say "measuring $scenario: $headline virtual users for ${seconds}s," \
        "sweep $sweep_argument for ${sweep_seconds}s each"
    "$load" run --target "127.0.0.1:$port" --state-file "$state_file" --scenario "$scenario" \
        --headline "$headline" --seconds "$seconds" --sweep "$sweep_argument" --sweep-seconds "$sweep_seconds" \
        --warmup "$warmup" --loops "$loops" --server-pid "$server_pid" --database-url "$server_url" >>"$raw" \
        || { say "error: the load generator failed on $scenario (see $server_log)"; failed+=("$scenario"); }
    "$TESSERA_ROOT/scripts/dev-db.sh" psql "$server_database" -XAtqc "CHECKPOINT" >/dev/null
    read -r grants_after families_after refresh_after spent_after expired_after bytes_after < <(table_state)
    awk -v scenario="$scenario" -v g=$((grants_after - grants_before)) -v f=$((families_after - families_before)) \
        -v r=$((refresh_after - refresh_before)) -v s="$spent_after" -v e="$expired_after" \
        -v b=$((bytes_after - bytes_before)) 'BEGIN {
            printf "%-20s %9d %12.3f %12.3f %12d %14d %12.0f\n", scenario, g, (g ? f / g : 0), (g ? r / g : 0), s, e,
                (g ? b / g : 0) }' >>"$rows"
done
printf '%s\n' "(spent codes: rows held at the end, each deleted by the janitor once past its 60 s expiry;" \
    "bytes/op: growth of every table and index, which includes pages PostgreSQL keeps for reuse)" >>"$rows"

# The "after" measurements must measure what "before" did, on a machine that has only drifted: the server stops
# first (its janitor would otherwise be deleting the load's spent codes meanwhile), the cluster writes out what the
# load left (CHECKPOINT), and the ceiling gets a fresh database as the floor does (not one holding "before"'s rows).
stop_process "$server_pid" 15 || say "tessera did not stop cleanly (see $server_log)"
server_pid=
"$dev_db" psql postgres -XAtqc "CHECKPOINT" >/dev/null
floor_url=$(prepare_token_cycle_database "$floor_database" "$shared" one_tx)
measured=$(measure_ceiling one_tx "$floor_url") || die "the one-transaction floor could not be measured"
read -r floor_after _ _ _ floor_after_db <<<"$measured"
cycle_rate=$(python3 -c '
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
print(next((round(r["operations_per_second"]) for r in rows
            if r["scenario"] == "cycle" and r["phase"] == "headline" and r["operations_per_second"] >= 1), ""))
' "$raw")
floor_at_cycle_rate=()
if [[ -n $cycle_rate ]]; then
    measured=$(measure_floor_at "$cycle_rate") || die "the floor at the cycle's rate could not be measured"
    read -r floor_rate floor_rate_db <<<"$measured"
    floor_at_cycle_rate=(--floor-at-cycle-rate "$floor_rate" "$floor_rate_db")
fi
ceiling_url=$(prepare_token_cycle_database "$ceiling_database" "$shared")
measured=$(measure_ceiling) || die "the pgbench ceiling could not be measured"
read -r after after_avg after_p50 after_p99 after_db <<<"$measured"
read -r steal_end total_end < <(cpu_steal_ticks)
steal_percent=$(awk -v s=$((steal_end - steal_start)) -v t=$((total_end - total_start)) \
    'BEGIN { printf "%.1f", (t > 0) ? 100 * s / t : 0 }')

commit=$(git -C "$TESSERA_ROOT" rev-parse --short HEAD 2>/dev/null || printf unknown)
[[ -z ${BENCH_TESSERA:-} ]] || commit="$commit (server: $BENCH_TESSERA)"
title="OAuth load test, $(date -u +%Y-%m-%dT%H:%M:%SZ), commit $commit, $(nproc) cores, server --loops $loops,"
title+=" ${seconds}s headline, ${sweep_seconds}s sweep, ${warmup}s warm-up"
python3 "$TESSERA_ROOT/scripts/bench-oauth-report.py" \
    --raw "$raw" --out "$results_dir/oauth" --headline "$headline" \
    --ceiling-before "$before" --ceiling-after "$after" \
    --ceiling-before-avg "$before_avg" --ceiling-after-avg "$after_avg" \
    --ceiling-before-percentiles "$before_p50" "$before_p99" --ceiling-after-percentiles "$after_p50" "$after_p99" \
    --ceiling-db-cpu "$(((before_db + after_db) / 2))" \
    --floor-before "$floor_before" --floor-after "$floor_after" \
    --floor-db-cpu "$(((floor_before_db + floor_after_db) / 2))" "${floor_at_cycle_rate[@]}" \
    --steal-percent "$steal_percent" --title "$title"
cat "$rows" >>"$results_dir/oauth.txt"
say "results written to $results_dir/oauth.txt, oauth.csv, oauth-rows.txt and oauth.png"
((${#failed[@]} == 0)) || die "no (or partial) results for: ${failed[*]}"
