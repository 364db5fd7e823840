#!/usr/bin/env bash
# The server's heap allocations and reference-count increments per HTTP request under load (make bench-allocs).
#
# The load test's CPU times move by ±10 % from run to run on this shared machine; a count of calls does not. This
# script starts `tessera serve --loops 2` on the dev cluster, drives one OAuthLoad scenario at 16 users, and counts,
# with perf uprobes on the live process, the calls to `malloc` (mimalloc's, which the executable links ahead of libc:
# docs/operations.md; libc's for a binary without it) and to the Swift runtime's `swift_retain`
# during BENCH_ALLOCS_SECONDS. Each count is divided by the public HTTP requests the server answered meanwhile
# (`tessera_http_requests_total`). uprobes slow the server several-fold, so the rate here means nothing; the
# counts per request do not depend on it. It prints one table and writes bench-results/allocs.txt.
#
# Needs root (uprobes) and perf (Debian `linux-perf`, which `make deps` installs).
#
# Environment:
#   BENCH_ALLOCS_SCENARIOS  the OAuthLoad scenarios (default: cycle refresh client_credentials)
#   BENCH_ALLOCS_SECONDS    how long each count runs (default 6)
#   BENCH_TESSERA           a tessera binary to measure instead of a new release build (scripts/lib.sh)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

scenarios=${BENCH_ALLOCS_SCENARIOS:-cycle refresh client_credentials}
seconds=${BENCH_ALLOCS_SECONDS:-6}
[[ $seconds =~ ^[1-9][0-9]*$ ]] || die "BENCH_ALLOCS_SECONDS must be a whole number of at least 1, not '$seconds'"
read_oauth_scenarios BENCH_ALLOCS_SCENARIOS "$scenarios"
command -v perf >/dev/null 2>&1 || die "no perf (run 'make deps')"
((EUID == 0)) || die "uprobes need root"
require_dev_keys

swift=${SWIFT:-swift}
runtime=$(dirname "$(readlink -f "$(command -v "$swift")")")/../lib/swift/linux/libswiftCore.so
[[ -f $runtime ]] || die "no Swift runtime at $runtime"

results_dir=$TESSERA_ROOT/bench-results
generator_scratch=$TESSERA_ROOT/.build-benchmarks
database=tessera_allocbench
dev_db=$TESSERA_ROOT/scripts/dev-db.sh
work=$(mktemp -d "${TMPDIR:-/tmp}/tessera-allocbench.XXXXXX")
server_pid=
probes=()

cleanup() {
    if [[ -n $server_pid ]] && kill -0 "$server_pid" 2>/dev/null; then
        stop_process "$server_pid" 15 || true
    fi
    for probe in "${probes[@]}"; do perf probe -q -d "$probe" 2>/dev/null || true; done
    "$dev_db" psql postgres -qc "DROP DATABASE IF EXISTS $database WITH (FORCE)" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

"$dev_db" start >/dev/null
bin=$(tessera_release_binary "$swift" "$TESSERA_ROOT/.build")
# The library whose malloc the binary calls: the first of mimalloc and libc in its list of libraries.
allocator=$(ldd "$bin" | awk '/libmimalloc\.so|libc\.so\.6/ { print $3; exit }')
[[ -f $allocator ]] || die "$bin links neither mimalloc nor libc (ldd)"
say "counting the calls of malloc in $allocator"

# Probes of their own group and names, so that the script neither needs nor removes anyone else's.
perf probe -q -x "$allocator" --add tessera_allocs:malloc=malloc \
    || die "perf cannot place a uprobe on malloc in $allocator"
probes+=("tessera_allocs:malloc")
perf probe -q -x "$runtime" --add tessera_allocs:swift_retain=swift_retain \
    || die "perf cannot place a uprobe on swift_retain in $runtime"
probes+=("tessera_allocs:swift_retain")

load=$(oauth_load_binary "$swift" "$generator_scratch")
database_url=$(fresh_database "$database")
admin_key_file=$work/admin-key
write_admin_key "$admin_key_file"
mkdir -p "$results_dir"
start_bench_server "$results_dir/allocs-server.log" 60 "$database_url" "$admin_key_file" 2 -- "$bin"
"$load" setup --admin "127.0.0.1:$admin_port" --admin-key-file "$admin_key_file" --users 16 \
    --state-file "$work/state" --loops 2 >/dev/null

# public_requests: the public HTTP requests the server has answered so far.
public_requests() {
    curl -sf "http://127.0.0.1:$admin_port/metrics" \
        | awk '/^tessera_http_requests_total\{/ && /listener="public"/ { sum += $NF } END { printf "%d", sum }'
}

# count_calls FILE COMMAND: the server's malloc and swift_retain calls while COMMAND (bash) runs, into FILE.
count_calls() {
    perf stat -x, -o "$1" -e tessera_allocs:malloc,tessera_allocs:swift_retain -p "$server_pid" \
        -- bash -c "$2" >/dev/null 2>&1
}
export -f public_requests
export admin_port

{
    printf 'Allocations per request, %s, commit %s, binary %s, %s s per scenario at 16 users\n\n' \
        "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$(git -C "$TESSERA_ROOT" rev-parse --short HEAD)" "$bin" "$seconds"
    printf '%-20s %10s %14s %14s\n' scenario requests 'malloc/req' 'swift_retain/req'
    for scenario in "${scenario_list[@]}"; do
        # A warm-up first: caches, prepared statements and connections are made before the count.
        "$load" run --target "127.0.0.1:$port" --state-file "$work/state" --scenario "$scenario" --headline 16 \
            --seconds 2 --warmup 1 --loops 2 >/dev/null
        # The requests are read inside perf's workload, once its probes count: attaching them takes a moment, and
        # requests answered meanwhile would otherwise be counted without their allocations. The two reads of the
        # counter are then counted too: what they cost, measured here with the server idle after the warm-up (whose
        # metric series a read renders), is taken off the count.
        count_calls "$work/reads" "public_requests >/dev/null; public_requests >/dev/null"
        read -r read_mallocs read_retains < <(
            awk -F, '/tessera_allocs:malloc/ { m = $1 } /tessera_allocs:swift_retain/ { r = $1 }
                END { print m, r }' "$work/reads")
        "$load" run --target "127.0.0.1:$port" --state-file "$work/state" --scenario "$scenario" --headline 16 \
            --seconds $((seconds + 4)) --warmup 0 --loops 2 >/dev/null &
        load_pid=$!
        sleep 1
        count_calls "$work/stat" "public_requests >'$work/before'; sleep $seconds; public_requests >'$work/after'"
        wait "$load_pid"
        requests=$(($(<"$work/after") - $(<"$work/before")))
        ((requests > 0)) || die "the server answered no request during the count of $scenario"
        awk -F, -v scenario="$scenario" -v requests="$requests" -v read_mallocs="$read_mallocs" \
            -v read_retains="$read_retains" '
            /tessera_allocs:malloc/ { mallocs = $1 - read_mallocs }
            /tessera_allocs:swift_retain/ { retains = $1 - read_retains }
            END { printf "%-20s %10d %14.1f %14.1f\n", scenario, requests, mallocs / requests, retains / requests }
        ' "$work/stat"
    done
} | tee "$results_dir/allocs.txt"
