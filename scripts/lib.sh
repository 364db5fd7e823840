# shellcheck shell=bash
# Shared helpers for the scripts in this folder. Source it; do not run it.
#
# Every helper either succeeds or prints one clear line on stderr and returns non-zero,
# so callers running under `set -euo pipefail` stop with a message instead of a mystery.

# The repository root, whatever the caller's working directory.
# shellcheck disable=SC2034 # used by the scripts that source this file
TESSERA_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# Where the dev cluster and the dev keys live: TESSERA_DATA_DIR, else .data in the repository.
TESSERA_DATA=${TESSERA_DATA_DIR:-$TESSERA_ROOT/.data}
[[ $TESSERA_DATA == /* ]] || TESSERA_DATA=$PWD/$TESSERA_DATA
# shellcheck disable=SC2034 # used by the scripts that source this file
DEV_ADMIN_KEY_FILE=$TESSERA_DATA/dev-admin-key
# shellcheck disable=SC2034 # used by the scripts that source this file
DEV_MASTER_KEY_FILE=$TESSERA_DATA/master.key

# Prints a message prefixed with the calling script's name on stderr.
say() {
    printf '%s: %s\n' "$(basename "$0")" "$*" >&2
}

# Prints a message and exits the calling script with status 1.
die() {
    say "error: $*"
    exit 1
}

# Stops the calling script unless scripts/dev-keys.sh has made the dev keys.
require_dev_keys() {
    [[ -r $DEV_ADMIN_KEY_FILE && -r $DEV_MASTER_KEY_FILE ]] \
        || die "no development keys in $TESSERA_DATA (run scripts/dev-keys.sh or 'make keys')"
}

# Prints a TCP port on 127.0.0.1 that nobody listens on right now.
# The kernel picks it, so two callers never race for the same well-known number.
free_port() {
    python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])
s.close()'
}

# wait_http URL TIMEOUT_SECONDS [PID]
# Waits until GET URL answers 200. Fails early when PID (the server) has exited, and
# after TIMEOUT_SECONDS otherwise.
wait_http() {
    local url=$1 timeout=$2 pid=${3:-}
    python3 - "$url" "$timeout" "$pid" <<'PY'
import sys, time, urllib.request, urllib.error

url, timeout, pid = sys.argv[1], float(sys.argv[2]), sys.argv[3]
deadline = time.monotonic() + timeout
last = "no answer"
while time.monotonic() < deadline:
    if pid:
        try:
            with open(f"/proc/{pid}/stat") as stat:
                exited = stat.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
        except FileNotFoundError:
            exited = True
        if exited:
            sys.exit(f"wait_http: the server (pid {pid}) exited before {url} answered")
    try:
        with urllib.request.urlopen(url, timeout=1) as response:
            if response.status == 200:
                sys.exit(0)
            last = f"HTTP {response.status}"
    except urllib.error.HTTPError as error:
        last = f"HTTP {error.code}"
    except OSError as error:
        last = str(error)
    time.sleep(0.1)
sys.exit(f"wait_http: {url} did not answer 200 within {timeout:g} s (last: {last})")
PY
}

# wait_tcp PORT TIMEOUT_SECONDS [PID]
# Waits until something accepts connections on 127.0.0.1:PORT.
wait_tcp() {
    local port=$1 timeout=$2 pid=${3:-} deadline
    deadline=$((SECONDS + timeout))
    while ((SECONDS < deadline)); do
        if [[ -n $pid ]] && ! kill -0 "$pid" 2>/dev/null; then
            say "the process $pid exited before port $port accepted connections"
            return 1
        fi
        if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
            return 0
        fi
        sleep 0.1
    done
    say "nothing accepted connections on 127.0.0.1:$port within $timeout s"
    return 1
}

# stop_process PID TIMEOUT_SECONDS
# Sends SIGTERM, waits up to TIMEOUT_SECONDS, then SIGKILL. Returns the process's exit
# status when it stopped on its own, or 124 when it had to be killed. PID must be a child
# of the calling shell so that `wait` can collect its status.
stop_process() {
    local pid=$1 timeout=$2 deadline status=0
    kill -0 "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null || status=$?; return "$status"; }
    kill -TERM "$pid" 2>/dev/null || true
    deadline=$((SECONDS + timeout))
    while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do
        sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
        say "process $pid did not stop within $timeout s after SIGTERM; killing it"
        kill -KILL "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
        return 124
    fi
    wait "$pid" 2>/dev/null || status=$?
    return "$status"
}

# read_oauth_scenarios SETTING VALUE
# Reads the OAuthLoad scenarios VALUE names into the array scenario_list; stops the calling script when it names none
# or one OAuthLoad does not know. SETTING is the environment variable VALUE came from, for the message.
read_oauth_scenarios() {
    local setting=$1 scenario
    # shellcheck disable=SC2034 # used by the scripts that call this
    read -r -a scenario_list <<<"$2"
    ((${#scenario_list[@]} > 0)) || die "$setting names no scenario"
    for scenario in "${scenario_list[@]}"; do
        [[ $scenario =~ ^(cycle|refresh|client_credentials)$ ]] \
            || die "unknown scenario '$scenario' in $setting (cycle, refresh, client_credentials)"
    done
}

# start_bench_cluster
# Starts (creating it once) the benchmarks' own PostgreSQL cluster under $TESSERA_DATA/pg-bench, with
# production durability (fsync, synchronous commit and full-page writes on), and points every later
# scripts/dev-db.sh call of the calling script at it. The dev cluster keeps its fast settings for tests.
start_bench_cluster() {
    export TESSERA_PG_CLUSTER=pg-bench TESSERA_PG_DURABLE=1
    "$TESSERA_ROOT/scripts/dev-db.sh" start >/dev/null
    local settings
    settings=$("$TESSERA_ROOT/scripts/dev-db.sh" psql postgres -XAtqc \
        "SELECT string_agg(name || '=' || setting, ' ' ORDER BY name) FROM pg_settings
         WHERE name IN ('fsync', 'synchronous_commit', 'full_page_writes')")
    [[ $settings == "fsync=on full_page_writes=on synchronous_commit=on" ]] \
        || die "the benchmark cluster is not durable ($settings)"
    say "benchmark cluster: $TESSERA_DATA/pg-bench ($settings)"
}

# tessera_release_binary SWIFT SCRATCH
# Prints the path of the tessera binary a benchmark measures: $BENCH_TESSERA when set (say, a copy of an earlier
# commit's release build, to compare before and after in one session), else a release build made now in SCRATCH.
tessera_release_binary() {
    local swift=$1 scratch=$2
    if [[ -n ${BENCH_TESSERA:-} ]]; then
        [[ -x $BENCH_TESSERA ]] || die "BENCH_TESSERA names no executable: '$BENCH_TESSERA'"
        say "measuring $BENCH_TESSERA (BENCH_TESSERA), not a new build"
        printf '%s\n' "$BENCH_TESSERA"
        return
    fi
    say "building tessera (release) in $scratch"
    "$swift" build -c release --product tessera --scratch-path "$scratch" >&2
    [[ -x $scratch/release/tessera ]] || die "the release build left no binary at $scratch/release/tessera"
    printf '%s\n' "$scratch/release/tessera"
}

# oauth_load_binary SWIFT SCRATCH
# Builds Benchmarks/ OAuthLoad (release) in SCRATCH and prints the path of its binary.
oauth_load_binary() {
    local swift=$1 scratch=$2
    say "building Benchmarks/ OAuthLoad (release) in $scratch"
    (cd "$TESSERA_ROOT/Benchmarks" && "$swift" build -c release --product OAuthLoad --scratch-path "$scratch" >&2)
    [[ -x $scratch/release/OAuthLoad ]] || die "the release build left no binary at $scratch/release/OAuthLoad"
    printf '%s\n' "$scratch/release/OAuthLoad"
}

# fresh_database NAME
# (Re)creates the empty database NAME on the cluster scripts/dev-db.sh points at, ending the sessions of an old one,
# and prints its URL.
fresh_database() {
    local name=$1 dev_db=$TESSERA_ROOT/scripts/dev-db.sh
    PGOPTIONS="-c client_min_messages=warning" \
        "$dev_db" psql postgres -qc "DROP DATABASE IF EXISTS $name WITH (FORCE)" >/dev/null
    "$dev_db" psql postgres -qc "CREATE DATABASE $name" >/dev/null
    "$dev_db" url "$name"
}

# write_admin_key FILE
# Writes a new random admin key (64 hex digits) to FILE, readable by its owner only: the key a benchmark's server
# bootstraps with and its load generator sets up with.
write_admin_key() {
    (umask 077 && od -An -v -tx1 -N 32 /dev/urandom | tr -d ' \n' >"$1")
}

# start_bench_server LOG HEALTHY_WITHIN DATABASE_URL ADMIN_KEY_FILE LOOPS [OPTION...] -- COMMAND...
# Starts COMMAND (a tessera binary, or a launcher and its arguments ending with one) as `tessera serve` for a benchmark:
# on two free ports, left in the caller's port and admin_port, its public listener the issuer, LOOPS loops, the
# development master key, ADMIN_KEY_FILE's key as the bootstrap admin key, app verification off, and any OPTIONs.
# Output goes to LOG; the server runs in the background, its pid left in server_pid, and the helper waits up to
# HEALTHY_WITHIN seconds for its /healthz.
start_bench_server() {
    local log=$1 healthy_within=$2 database_url=$3 admin_key_file=$4 loops=$5 options=()
    shift 5
    while (($#)) && [[ $1 != -- ]]; do
        options+=("$1")
        shift
    done
    (($# > 1)) || die "start_bench_server: no command after --"
    shift
    port=$(free_port)
    admin_port=$(free_port)
    say "starting tessera serve --loops $loops on 127.0.0.1:$port (admin $admin_port)"
    "$@" serve --database-url "$database_url" --listen "127.0.0.1:$port" --admin-listen "127.0.0.1:$admin_port" \
        --issuer "http://127.0.0.1:$port" --loops "$loops" --master-key-file "$DEV_MASTER_KEY_FILE" \
        --bootstrap-admin-key "$(<"$admin_key_file")" --app-verification disabled-for-testing "${options[@]}" \
        >"$log" 2>&1 </dev/null &
    server_pid=$!
    wait_http "http://127.0.0.1:$port/healthz" "$healthy_within" "$server_pid" \
        || die "tessera did not become healthy (see $log)"
}

# prepare_token_cycle_database NAME SHARED [KIND]
# (Re)creates database NAME on the cluster scripts/dev-db.sh points at (start_bench_cluster) from
# SHARED/bench/pg_KIND_schema.sql and prints its URL. KIND is token (the default: the pgbench token-cycle ceiling,
# two transactions) or one_tx (the floor of a grant that writes once: a sealed code spent in the transaction that
# creates the family and the refresh token).
prepare_token_cycle_database() {
    local name=$1 shared=$2 kind=${3:-token} dev_db=$TESSERA_ROOT/scripts/dev-db.sh
    [[ -f $shared/bench/pg_${kind}_schema.sql && -f $shared/bench/pg_${kind}_cycle.sql ]] \
        || die "no $shared/bench/pg_${kind}_schema.sql or pg_${kind}_cycle.sql (set SHARED=...)"
    PGOPTIONS="-c client_min_messages=warning" "$dev_db" psql postgres -qc "DROP DATABASE IF EXISTS $name" >/dev/null
    "$dev_db" psql postgres -qc "CREATE DATABASE $name" >/dev/null
    "$dev_db" psql "$name" -q -f "$shared/bench/pg_${kind}_schema.sql" >/dev/null
    "$dev_db" url "$name"
}

# pgbench_token_cycle URL SECONDS SHARED [KIND [RATE]]
# Runs a token-cycle ceiling once: pgbench -n -M prepared -c 16 -j 2 with SHARED/bench/pg_KIND_cycle.sql (KIND
# token by default, or one_tx) against URL (made by prepare_token_cycle_database with the same KIND) for SECONDS,
# at most RATE cycles a second when given (pgbench -R; its latencies then count from each cycle's scheduled start),
# and prints "cycles/s latency-average-ms p50-ms p99-ms": the percentiles of the cycles' latency, from pgbench's
# log of a tenth of its transactions, drawn at random (-l --sampling-rate 0.1; one script run is one pgbench
# transaction), enough for a p99 and a tenth of the log's writes. Fails with pgbench's output when pgbench fails.
pgbench_token_cycle() {
    local url=$1 seconds=$2 shared=$3 kind=${4:-token} rate=${5:-} raw script logs status=0
    script=$shared/bench/pg_${kind}_cycle.sql
    logs=$(mktemp -d "${TMPDIR:-/tmp}/pgbench-log.XXXXXX")
    if [[ $kind == one_tx ]]; then
        # Its code ids are one random number in 2e9 per client: at 20,000 cycles/s two of a client's codes collide
        # within seconds and pgbench aborts on the duplicate key. The same statements over a wider range of ids.
        script=$logs/pg_one_tx_cycle.sql
        sed 's/random(1, 2000000000)/random(1, 1000000000000000000)/' "$shared/bench/pg_one_tx_cycle.sql" >"$script"
    fi
    if ! raw=$(pgbench -n -M prepared -c 16 -j 2 -T "$seconds" ${rate:+-R "$rate"} -l --sampling-rate 0.1 --log-prefix "$logs/cycle" \
        -f "$script" "$url" 2>&1); then
        say "pgbench failed: $raw"
        rm -rf "$logs"
        return 1
    fi
    local summary
    summary=$(awk '/^tps = / { tps = $3 } /^latency average = / { avg = $4 } END { if (tps != "") print tps, avg }' \
        <<<"$raw")
    # The log's third field is the transaction's latency in microseconds.
    cat "$logs"/cycle.* | awk '{ print $3 }' | sort -n | awk -v summary="$summary" '
        { latency[NR] = $1 }
        END {
            if (summary == "" || NR == 0) exit 1
            split(summary, part, " ")
            printf "%.1f %.3f %.3f %.3f\n", part[1], part[2], latency[int((NR - 1) * 0.50) + 1] / 1000,
                latency[int((NR - 1) * 0.99) + 1] / 1000
        }' || status=$?
    rm -rf "$logs"
    ((status == 0)) || { say "could not read pgbench's output: $raw"; return 1; }
}
