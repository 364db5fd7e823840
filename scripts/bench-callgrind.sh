#!/usr/bin/env bash
# The whole server's instructions per operation (make bench-callgrind).
#
# `make bench-steps` counts single steps of the token path in a program of their own; this counts everything
# `tessera serve` runs for a request (HTTP, the loops, tasks, logging, the database client, crypto; the kernel
# excepted). The server runs under `valgrind --tool=callgrind` on the benchmark cluster (scripts/lib.sh); for each
# scenario, `OAuthLoad run` signs its users in and warms up, the counts are zeroed when it begins measuring and dumped
# when it ends (callgrind_control), and bench-callgrind-report.py divides them by the requests the dump itself
# records (the calls that start a request's handler). What the server runs with no request, counted over an idle
# window as long first, is taken off. Instruction counts do not move with the machine's load, so a change of a few
# percent in the server's CPU a request shows here when the load test's rates hide it. Under valgrind the server runs
# one thread at a time and about fifty times slower, so grants rarely share a statement: the counts are those of a
# lightly loaded server. valgrind also hides the SHA extensions, AVX-512 and ADX from the server, so OpenSSL's share
# is larger here than on the machine (docs/benchmarks.md).
#
# valgrind 3.19 stops with its own SIGSEGV when a program suspends in sigsuspend(2) on a signal mask in read-only
# memory, which libdispatch does on the main thread of every Swift program with an async main; a preloaded
# `sigsuspend` (built here from a few lines of C) passes a copy of the mask instead. It is loaded into the measured
# server only.
#
# It prints instructions per request and per operation, for GET /healthz first (what any request costs) and then each
# scenario, and where they went (by library, by function, by module; per
# operation), writes bench-results/callgrind.txt and keeps each scenario's callgrind file in bench-results/callgrind/
# (read them with `callgrind_annotate`).
#
# Environment:
#   BENCH_CALLGRIND_SCENARIOS  the OAuthLoad scenarios (default: cycle refresh client_credentials)
#   BENCH_CALLGRIND_SECONDS    how long each count runs (default 10)
#   BENCH_CALLGRIND_USERS      the load's users (default 4)
#   BENCH_CALLGRIND_FUNCTIONS  how many functions to list per scenario (default 25)
#   BENCH_TESSERA              a tessera binary to measure instead of a new release build (scripts/lib.sh)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

scenarios=${BENCH_CALLGRIND_SCENARIOS:-cycle refresh client_credentials}
seconds=${BENCH_CALLGRIND_SECONDS:-10}
users=${BENCH_CALLGRIND_USERS:-4}
functions=${BENCH_CALLGRIND_FUNCTIONS:-25}
for setting in seconds users functions; do
    [[ ${!setting} =~ ^[1-9][0-9]*$ ]] \
        || die "BENCH_CALLGRIND_${setting^^} must be a whole number of at least 1, not '${!setting}'"
done
read_oauth_scenarios BENCH_CALLGRIND_SCENARIOS "$scenarios"
for tool in valgrind callgrind_control callgrind_annotate wrk; do
    command -v "$tool" >/dev/null 2>&1 || die "no $tool (run 'make deps')"
done
require_dev_keys

swift=${SWIFT:-swift}
cc=${CC:-$(dirname "$(readlink -f "$(command -v "$swift")")")/clang}
command -v "$cc" >/dev/null 2>&1 || die "no C compiler at '$cc' (set CC)"

results_dir=$TESSERA_ROOT/bench-results
dumps_dir=$results_dir/callgrind
generator_scratch=$TESSERA_ROOT/.build-benchmarks
database=tessera_callgrindbench
dev_db=$TESSERA_ROOT/scripts/dev-db.sh
work=$(mktemp -d "${TMPDIR:-/tmp}/tessera-callgrindbench.XXXXXX")
server_pid=

cleanup() {
    if [[ -n $server_pid ]] && kill -0 "$server_pid" 2>/dev/null; then
        stop_process "$server_pid" 15 || true
    fi
    # What callgrind writes when the server exits is not any window's.
    rm -f "$dumps_dir"/callgrind.*
    "$dev_db" psql postgres -qc "DROP DATABASE IF EXISTS $database WITH (FORCE)" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

cat >"$work/sigsuspend.c" <<'C'
#define _GNU_SOURCE
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

/* sigsuspend(2) on a copy of the mask, which valgrind may write to (see scripts/bench-callgrind.sh). */
int sigsuspend(const sigset_t *mask) {
    sigset_t copy = *mask;
    return (int)syscall(SYS_rt_sigsuspend, &copy, _NSIG / 8);
}
C
"$cc" -O2 -shared -fPIC -o "$work/sigsuspend.so" "$work/sigsuspend.c" \
    || die "$cc could not build the sigsuspend shim"

start_bench_cluster
bin=$(tessera_release_binary "$swift" "$TESSERA_ROOT/.build")
load=$(oauth_load_binary "$swift" "$generator_scratch")
database_url=$(fresh_database "$database")
admin_key_file=$work/admin-key
write_admin_key "$admin_key_file"
rm -rf "$dumps_dir"
mkdir -p "$dumps_dir"
# Counting starts at once; each window below zeroes the counts first, so start-up and set-up are not in them.
start_bench_server "$results_dir/callgrind-server.log" 180 "$database_url" "$admin_key_file" 2 -- \
    env LD_PRELOAD="$work/sigsuspend.so" valgrind --tool=callgrind --callgrind-out-file="$dumps_dir/callgrind.%p" "$bin"
"$load" setup --admin "127.0.0.1:$admin_port" --admin-key-file "$admin_key_file" --users "$users" \
    --state-file "$work/state" --loops 1 >/dev/null

# zero: zeroes the server's counts.
zero() {
    callgrind_control -z "$server_pid" >/dev/null 2>&1 || die "callgrind_control could not zero the counts"
}

# dump NAME: dumps the server's counts since the last zero into the callgrind file $dumps_dir/NAME.callgrind.
dump() {
    callgrind_control --dump="$1" "$server_pid" >/dev/null 2>&1 || die "callgrind_control could not dump the counts"
    local file
    file=$(grep -l "^desc: Trigger: .*$1\$" "$dumps_dir"/callgrind.* | head -1)
    [[ -n $file ]] || die "callgrind wrote no dump named $1"
    mv "$file" "$dumps_dir/$1.callgrind"
}

# The server's own background work (timers, the configuration feed) over a window of the same length.
zero
sleep "$seconds"
dump idle
{
    printf 'Server instructions per operation, %s, commit %s, binary %s, callgrind, %s s per scenario at %s users\n' \
        "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$(git -C "$TESSERA_ROOT" rev-parse --short HEAD)" "$bin" "$seconds" "$users"
    printf 'with no request, %s instructions in %s s were taken off each count\n\n' \
        "$(awk '/^summary:/ { print $2 }' "$dumps_dir/idle.callgrind")" "$seconds"
    printf '%-20s %10s %10s %16s %18s %18s\n' scenario requests operations 'instructions/req' 'instructions/op' \
        'without OpenSSL/op'
    # For scale, first what any request costs: GET /healthz (HTTP, the loop, the handler's task; no database).
    wrk -t1 -c2 -d2s "http://127.0.0.1:$port/healthz" >/dev/null || die "wrk could not reach the server"
    zero
    wrk -t1 -c2 -d"${seconds}s" "http://127.0.0.1:$port/healthz" >/dev/null || die "wrk could not reach the server"
    dump healthz
    SWIFT=$swift python3 "$TESSERA_ROOT/scripts/bench-callgrind-report.py" "GET /healthz" \
        "$dumps_dir/healthz.callgrind" "$dumps_dir/idle.callgrind" 1 "$functions"
    for scenario in "${scenario_list[@]}"; do
        # The run signs its users in (scrypt, which is not the scenario's work) and warms up (caches, prepared
        # statements, connections) first: the count starts when it begins measuring. The report counts the requests
        # in the dump itself (bench-callgrind-report.py), so both counts start at the same moment.
        "$load" run --target "127.0.0.1:$port" --state-file "$work/state" --scenario "$scenario" \
            --headline "$users" --seconds "$seconds" --warmup 1 --loops 1 >"$work/run" 2>"$work/run.log" &
        load_pid=$!
        until grep -q "measuring for" "$work/run.log"; do
            kill -0 "$load_pid" 2>/dev/null || die "the $scenario run stopped early: $(tail -c 300 "$work/run.log")"
            sleep 0.1
        done
        zero
        wait "$load_pid" || die "the $scenario run failed: $(tail -c 300 "$work/run.log")"
        dump "$scenario"
        per_operation=$(python3 -c 'import json, sys
r = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
assert r["errors"] == 0
print(r["requests_per_second"] / r["operations_per_second"])' "$work/run") \
            || die "the $scenario run failed or had errors: $(tail -c 300 "$work/run")"
        SWIFT=$swift python3 "$TESSERA_ROOT/scripts/bench-callgrind-report.py" "$scenario" \
            "$dumps_dir/$scenario.callgrind" "$dumps_dir/idle.callgrind" "$per_operation" "$functions"
    done
} | tee "$results_dir/callgrind.txt"
