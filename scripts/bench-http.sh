#!/usr/bin/env bash
# HTTP throughput against this machine's ceiling (make bench).
#
# 1. The ceiling: ../shared/bench/uvhello.c, a libuv server that answers every request with
#    a fixed response and parses nothing, on 2 loops, measured with wrk.
# 2. Tessera (release build, `serve --loops 2`) with identical wrk settings:
#    (a) GET /healthz and (b) POST /rpc with {"jsonrpc":"2.0","id":1,"method":"rpc.discover"}.
# It prints a table (requests/s, p50, p99, errors) and the ratios healthz/ceiling (target
# >= 0.5) and rpc/ceiling (target >= 0.35), and writes them to bench-results/http.txt; the
# raw wrk output of each run lands beside it. Machines are shared and noisy: compare
# ratios measured in one run, not absolute numbers across runs.
#
# It starts the benchmark cluster (durable, scripts/lib.sh start_bench_cluster) and expects the keys
# to exist (`make bench` makes them).
#
# Environment:
#   SHARED              the shared folder (default: ../shared beside the repository)
#   BENCH_SECONDS       wrk duration per measurement (default 10)
#   BENCH_WARMUP        seconds of unmeasured load before each measurement (default 1; 0 = none)
#   BENCH_THREADS, BENCH_CONNECTIONS, BENCH_LOOPS   wrk -t, wrk -c, server loops (2, 64, 2)
#   BENCH_TESSERA          a tessera binary to measure instead of building one (as in scripts/bench-oauth.sh)
#   BENCH_CEILING_ONLY=1  measure only the ceiling (no Swift build, no database)
#   SWIFT, SCRATCH      the swift command and its scratch path (default swift, .build)
#   TESSERA_BENCH_DATABASE_URL  the database (default: the durable benchmark cluster's `tessera`)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

shared=${SHARED:-$TESSERA_ROOT/../shared}
seconds=${BENCH_SECONDS:-10}
warmup=${BENCH_WARMUP:-1}
threads=${BENCH_THREADS:-2}
connections=${BENCH_CONNECTIONS:-64}
loops=${BENCH_LOOPS:-2}
ceiling_only=${BENCH_CEILING_ONLY:-0}
swift=${SWIFT:-swift}
scratch=${SCRATCH:-$TESSERA_ROOT/.build}
[[ $scratch == /* ]] || scratch=$TESSERA_ROOT/$scratch
results_dir=$TESSERA_ROOT/bench-results
results=$results_dir/http.txt
bench_build=$TESSERA_ROOT/.build-bench
rpc_script=$TESSERA_ROOT/Benchmarks/wrk/rpc-discover.lua

for setting in seconds warmup threads connections loops; do
    [[ ${!setting} =~ ^[0-9]+$ ]] || die "$setting must be a whole number, not '${!setting}'"
done
((seconds > 0)) || die "BENCH_SECONDS must be at least 1"
[[ -f $shared/bench/uvhello.c ]] || die "no $shared/bench/uvhello.c (set SHARED=/path/to/shared)"
command -v wrk >/dev/null 2>&1 || die "wrk is missing (run 'make deps')"
command -v cc >/dev/null 2>&1 || die "cc is missing"

mkdir -p "$results_dir" "$bench_build"
server_pid=

cleanup() {
    if [[ -n $server_pid ]] && kill -0 "$server_pid" 2>/dev/null; then
        stop_process "$server_pid" 15 || true
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# What each measurement is called in the table.
declare -A labels=(
    [ceiling]="ceiling: uvhello, $loops loops"
    [healthz]="tessera GET /healthz"
    [rpc]="tessera POST /rpc rpc.discover"
)
declare -A rates=()

# measure NAME URL [wrk options...]
# Runs wrk against URL and records "NAME requests/s p50 p99 errors" (latencies in ms) in
# rows, and the rate in rates[NAME]; the raw output goes to bench-results/http-NAME.wrk.txt.
rows=()
measure() {
    local name=$1 url=$2
    shift 2
    local raw=$results_dir/http-$name.wrk.txt
    if ((warmup > 0)); then
        wrk -t"$threads" -c"$connections" -d"${warmup}s" "$@" "$url" >/dev/null
    fi
    say "measuring $name: wrk -t$threads -c$connections -d${seconds}s --latency${*:+ $*} $url"
    wrk -t"$threads" -c"$connections" -d"${seconds}s" --latency "$@" "$url" >"$raw"
    local row
    row=$(awk -v name="$name" '
        function ms(value,    number, unit) {
            number = value + 0
            unit = value
            sub(/^[0-9.]+/, "", unit)
            if (unit == "us") return number / 1000
            if (unit == "ms") return number
            if (unit == "s") return number * 1000
            if (unit == "m") return number * 60000
            return -1
        }
        /^Requests\/sec:/ { rps = $2 }
        /^ +50%/ { p50 = ms($2) }
        /^ +99%/ { p99 = ms($2) }
        /^ +Non-2xx or 3xx responses:/ { errors += $NF }
        /^ +Socket errors:/ {
            for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+,?$/) errors += $i + 0
        }
        END {
            if (rps == "" || p50 == "" || p99 == "") exit 1
            printf "%s %.1f %.3f %.3f %d\n", name, rps, p50, p99, errors
        }' "$raw") || die "could not read wrk's output for $name (see $raw)"
    rows+=("$row")
    read -r _ "rates[$name]" _ <<<"$row"
}


say "compiling the ceiling server from $shared/bench/uvhello.c"
cc -O2 -o "$bench_build/uvhello" "$shared/bench/uvhello.c" -luv -lpthread

if ((!ceiling_only)); then
    bin=$(tessera_release_binary "$swift" "$scratch")
    require_dev_keys
    [[ -n ${TESSERA_BENCH_DATABASE_URL:-} ]] || start_bench_cluster
fi

port=$(free_port)
"$bench_build/uvhello" "$port" "$loops" >"$results_dir/uvhello.log" 2>&1 </dev/null &
server_pid=$!
wait_tcp "$port" 10 "$server_pid"
measure ceiling "http://127.0.0.1:$port/rpc"
stop_process "$server_pid" 5 || true
server_pid=

if ((!ceiling_only)); then
    database_url=${TESSERA_BENCH_DATABASE_URL:-$("$TESSERA_ROOT/scripts/dev-db.sh" url tessera)}
    port=$(free_port)
    admin_port=$(free_port)
    "$bin" serve \
        --database-url "$database_url" \
        --listen "127.0.0.1:$port" \
        --admin-listen "127.0.0.1:$admin_port" \
        --loops "$loops" \
        --master-key-file "$DEV_MASTER_KEY_FILE" \
        --bootstrap-admin-key "$(<"$DEV_ADMIN_KEY_FILE")" \
        >"$results_dir/tessera-server.log" 2>&1 </dev/null &
    server_pid=$!
    wait_http "http://127.0.0.1:$port/healthz" 60 "$server_pid" \
        || die "tessera did not become healthy (see $results_dir/tessera-server.log)"
    measure healthz "http://127.0.0.1:$port/healthz"
    measure rpc "http://127.0.0.1:$port/rpc" -s "$rpc_script"
    stop_process "$server_pid" 15 || say "tessera did not stop cleanly (see $results_dir/tessera-server.log)"
    server_pid=
fi

# ratio_line NAME TARGET: prints "NAME / ceiling  R  (target >= T)  verdict".
ratio_line() {
    local name=$1 target=$2
    awk -v name="$name" -v rate="${rates[$name]}" -v ceiling="${rates[ceiling]}" -v target="$target" 'BEGIN {
        r = (ceiling > 0) ? rate / ceiling : 0
        verdict = (r >= target) ? "met" : "BELOW TARGET"
        printf("%-8s / ceiling  %5.2f  (target >= %.2f)  %s\n", name, r, target, verdict)
    }'
}

{
    printf 'HTTP benchmark, %s, commit %s, %s cores\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
        "$(git -C "$TESSERA_ROOT" rev-parse --short HEAD 2>/dev/null || printf unknown)" "$(nproc)"
    printf 'wrk -t%s -c%s -d%ss --latency against 127.0.0.1; servers on %s loops\n\n' \
        "$threads" "$connections" "$seconds" "$loops"
    printf '%-34s %12s %10s %10s %8s\n' target 'requests/s' 'p50 ms' 'p99 ms' errors
    for row in "${rows[@]}"; do
        read -r name rps p50 p99 errors <<<"$row"
        printf '%-34s %12s %10s %10s %8s\n' "${labels[$name]}" "$rps" "$p50" "$p99" "$errors"
    done
    if ((!ceiling_only)); then
        printf '\n'
        ratio_line healthz 0.5
        ratio_line rpc 0.35
    fi
    for row in "${rows[@]}"; do
        read -r name _ _ _ errors <<<"$row"
        if ((errors > 0)); then
            printf '\nwarning: %s had %s errors (non-2xx responses or socket errors); see %s\n' \
                "$name" "$errors" "$results_dir/http-$name.wrk.txt"
        fi
    done
} | tee "$results"
say "results written to $results"
