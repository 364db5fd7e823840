#!/usr/bin/env bash
# A private PostgreSQL cluster for development and tests, under .data/pg.
#
#   scripts/dev-db.sh start        create the cluster if needed, start it if stopped, create the
#                                  databases `tessera` and `tessera_test`, print the URL of `tessera`
#   scripts/dev-db.sh stop         stop it (a no-op when it is not running)
#   scripts/dev-db.sh status       say whether it runs; exit 0 when it does, 3 when it does not
#   scripts/dev-db.sh url [DB]     print the libpq URL of DB (default `tessera`); needs no server
#   scripts/dev-db.sh psql [DB] [ARGS...]  open psql on DB (ARGS go to psql)
#   scripts/dev-db.sh remove       stop it and delete its folder (make distclean)
#
# The cluster listens on no TCP port, only on a Unix socket in .data/pg (or in a short
# directory under /tmp when that path would be too long for a socket), so it never clashes
# with another PostgreSQL on this machine. It trusts every local connection and runs with
# fsync=off and synchronous_commit=off: fast, and fine for throw-away development data,
# but a crash of the machine can lose or corrupt it. Never use it for data you want to keep.
#
# initdb refuses to run as root, so as root the cluster belongs to the `postgres` user and
# every server command runs through `runuser -u postgres --`. That user must reach the cluster: a
# checkout in a folder only root can enter (a clone in /root, whose mode is 700) keeps its data and
# keys in .data but its cluster under /var/lib/tessera-dev, in a folder named after the data folder.
#
# The benchmarks run a second cluster with production durability (fsync, synchronous commit and
# full-page writes on) beside it: TESSERA_PG_CLUSTER=pg-bench TESSERA_PG_DURABLE=1 scripts/dev-db.sh
# start (scripts/lib.sh start_bench_cluster does this); it has its own folder and socket.
#
# Environment: TESSERA_DATA_DIR (default .data in the repository) holds the cluster in pg/
# (TESSERA_PG_CLUSTER names another folder there); TESSERA_PG_DURABLE=1 writes durable settings at
# start instead of the fast ones; PG_BIN names the directory of the PostgreSQL server binaries (default: the newest
# /usr/lib/postgresql/<version>/bin, or the one matching an existing cluster).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

DATA_ROOT=$TESSERA_DATA
CLUSTER_NAME=${TESSERA_PG_CLUSTER:-pg}
[[ $CLUSTER_NAME =~ ^[A-Za-z0-9._-]+$ && $CLUSTER_NAME != . && $CLUSTER_NAME != .. ]] \
    || die "TESSERA_PG_CLUSTER must be a plain folder name, not '$CLUSTER_NAME'"
CLUSTER_DIR=$DATA_ROOT/$CLUSTER_NAME
DURABLE=${TESSERA_PG_DURABLE:-0}
[[ $DURABLE == 0 || $DURABLE == 1 ]] || die "TESSERA_PG_DURABLE must be 0 or 1, not '$DURABLE'"
SERVER_LOG=$CLUSTER_DIR/server.log
DATABASES=(tessera tessera_test)
SUPERUSER=postgres
# The socket's file name carries the port; with no TCP listener the number only names it.
PORT=5432
# sun_path holds 108 bytes; leave room so PostgreSQL's own checks never trip.
MAX_SOCKET_PATH=100

usage() {
    sed -n '2,10s/^# \{0,1\}//p' "$0" >&2
    exit 2
}

# Prints the directory that holds the server binaries, or fails saying how to get them.
server_bin_dir() {
    if [[ -n ${PG_BIN:-} ]]; then
        [[ -x $PG_BIN/pg_ctl ]] || die "PG_BIN=$PG_BIN has no pg_ctl"
        printf '%s\n' "$PG_BIN"
        return
    fi
    if [[ -f $CLUSTER_DIR/PG_VERSION ]]; then
        local version
        version=$(<"$CLUSTER_DIR/PG_VERSION")
        if [[ -x /usr/lib/postgresql/$version/bin/pg_ctl ]]; then
            printf '%s\n' "/usr/lib/postgresql/$version/bin"
            return
        fi
        die "the cluster in $CLUSTER_DIR was made by PostgreSQL $version, whose binaries are not installed" \
            "(install postgresql-$version, or remove the cluster with 'make distclean')"
    fi
    local newest
    newest=$(find /usr/lib/postgresql -mindepth 3 -maxdepth 3 -path '*/bin/initdb' 2>/dev/null \
        | sed 's|^/usr/lib/postgresql/||; s|/bin/initdb$||' | sort -V | tail -n 1)
    [[ -n $newest ]] || die "no PostgreSQL server found under /usr/lib/postgresql/*/bin (run 'make deps')"
    printf '%s\n' "/usr/lib/postgresql/$newest/bin"
}

# Prints the directory of the server's Unix socket: the cluster directory itself, or a
# short directory under /tmp, named after the cluster's path, when the socket's path
# would not fit.
socket_dir() {
    local socket_path=$CLUSTER_DIR/.s.PGSQL.$PORT
    if ((${#socket_path} <= MAX_SOCKET_PATH)); then
        printf '%s\n' "$CLUSTER_DIR"
    else
        printf '/tmp/tessera-pg-%s\n' "$(printf '%s' "$CLUSTER_DIR" | cksum | cut -d ' ' -f 1)"
    fi
}

# Prints STRING with every byte outside [A-Za-z0-9/._~-] percent-encoded, for a URL.
percent_encode() {
    local string=$1 encoded='' character i
    local LC_ALL=C
    for ((i = 0; i < ${#string}; i++)); do
        character=${string:i:1}
        case $character in
            [A-Za-z0-9/._~-]) encoded+=$character ;;
            *) encoded+=$(printf '%%%02X' "'$character") ;;
        esac
    done
    printf '%s\n' "$encoded"
}

# Prints the libpq URL of database $1.
database_url() {
    printf 'postgresql:///%s?host=%s&user=%s\n' "$1" "$(percent_encode "$(socket_dir)")" "$SUPERUSER"
}

is_root() {
    ((EUID == 0))
}

# Runs a command as the cluster's owner: `postgres` when we are root, else ourselves.
# It runs from / so that an unreadable working directory cannot trouble the server tools.
as_owner() {
    if is_root; then
        (cd / && runuser -u "$SUPERUSER" -- "$@")
    else
        (cd / && "$@")
    fi
}

# As root, makes sure the `postgres` user can reach DIR; otherwise names the directory on
# the way that it cannot pass through, and stops.
require_reachable_by_owner() {
    local dir=$1
    is_root || return 0
    as_owner test -x "$dir" && return 0
    local blocker=$dir
    while [[ $blocker != / ]]; do
        local parent
        parent=$(dirname "$blocker")
        if ! as_owner test -x "$parent"; then
            blocker=$parent
        else
            break
        fi
    done
    die "the '$SUPERUSER' user cannot traverse $blocker, so PostgreSQL cannot reach $dir." \
        "Allow it (chmod o+x $blocker), or put the data elsewhere with TESSERA_DATA_DIR=/some/reachable/dir."
}

# As root, moves CLUSTER_DIR under /var/lib/tessera-dev when the `postgres` user cannot reach the data folder
# (a checkout in a home only root may enter); the folder is named after the data folder's path, so every
# command of this checkout finds the same cluster.
place_cluster() {
    is_root || return 0
    id -u "$SUPERUSER" >/dev/null 2>&1 || return 0
    local probe=$DATA_ROOT
    while [[ ! -e $probe && $probe != / ]]; do probe=$(dirname "$probe"); done
    as_owner test -x "$probe" && return 0
    CLUSTER_DIR=/var/lib/tessera-dev/$(printf '%s' "$DATA_ROOT" | cksum | cut -d ' ' -f 1)/$CLUSTER_NAME
    SERVER_LOG=$CLUSTER_DIR/server.log
}

# Prints the pid recorded in postmaster.pid, if any.
recorded_pid() {
    [[ -f $CLUSTER_DIR/postmaster.pid ]] || return 1
    local pid
    pid=$(head -n 1 "$CLUSTER_DIR/postmaster.pid" 2>/dev/null) || return 1
    [[ $pid =~ ^[0-9]+$ ]] || return 1
    printf '%s\n' "$pid"
}

# Succeeds when the postmaster recorded in postmaster.pid is alive, is a postgres
# process, and serves this cluster. A pid that survived a machine restart may now belong
# to some other process: that is not "running".
is_running() {
    local pid comm cwd
    pid=$(recorded_pid) || return 1
    [[ -r /proc/$pid/comm ]] || return 1
    comm=$(<"/proc/$pid/comm")
    [[ $comm == postgres || $comm == postmaster ]] || return 1
    if cwd=$(readlink -f "/proc/$pid/cwd" 2>/dev/null) && [[ -n $cwd ]]; then
        [[ $cwd == "$(readlink -f "$CLUSTER_DIR")" ]] || return 1
    fi
    return 0
}

# Removes what a postmaster that died without cleaning up (machine restart, kill -9)
# leaves behind: its pid file and its socket lock. Called only when is_running failed.
remove_stale_state() {
    local pid sockets
    if [[ -f $CLUSTER_DIR/postmaster.pid ]]; then
        pid=$(recorded_pid || printf 'unknown')
        say "removing stale postmaster.pid (pid $pid is not this cluster's server)"
        rm -f "$CLUSTER_DIR/postmaster.pid"
    fi
    sockets=$(socket_dir)
    rm -f "$sockets/.s.PGSQL.$PORT" "$sockets/.s.PGSQL.$PORT.lock"
}

# Resumes the backends a killed test run left stopped. The tests of a hung server stop their own backends (SIGSTOP)
# and resume them as they end, which a killed run never does; a stopped backend answers no barrier, so every later
# DROP DATABASE (and the test run making it) would wait for it forever.
resume_stopped_backends() {
    local postmaster pid state
    postmaster=$(recorded_pid) || return 0
    while read -r pid state; do
        [[ $state == T* ]] || continue
        say "resuming backend $pid, left stopped by a test run that was killed"
        kill -CONT "$pid" 2>/dev/null || true
    done < <(ps --ppid "$postmaster" -o pid=,stat=)
}

# Creates the cluster directory and runs initdb.
create_cluster() {
    local bin=$1
    if [[ -d $CLUSTER_DIR ]] && [[ -n $(ls -A "$CLUSTER_DIR") ]]; then
        die "$CLUSTER_DIR exists but holds no PostgreSQL cluster (no PG_VERSION); move it away or remove it"
    fi
    [[ -d $CLUSTER_DIR ]] || mkdir "$CLUSTER_DIR"
    chmod 0700 "$CLUSTER_DIR"
    if is_root; then
        chown "$SUPERUSER:" "$CLUSTER_DIR"
    fi
    say "creating a PostgreSQL cluster in $CLUSTER_DIR"
    local output
    if ! output=$(as_owner "$bin/initdb" --pgdata="$CLUSTER_DIR" --username="$SUPERUSER" --auth=trust \
        --encoding=UTF8 --locale=C.UTF-8 --no-sync --no-instructions 2>&1); then
        printf '%s\n' "$output" >&2
        die "initdb failed"
    fi
    # shellcheck disable=SC2016 # $1 is expanded by the inner shell, on purpose.
    as_owner sh -c 'printf "\n%s\n" "include_if_exists = '"'"'tessera-dev.conf'"'"'" >> "$1"' \
        sh "$CLUSTER_DIR/postgresql.conf"
}

# Writes the settings that depend on where the repository lives; done at every start so
# that a moved checkout still works.
write_settings() {
    local sockets=$1 quoted durability
    quoted=${sockets//\'/\'\'}
    if ((DURABLE)); then
        durability=$'# Production durability, for the benchmarks: every commit waits for its WAL flush.\nfsync = on\nsynchronous_commit = on\nfull_page_writes = on'
    else
        durability=$'# A throw-away development cluster: durability is traded for speed, which is fine for\n# dev and test data.\nfsync = off\nsynchronous_commit = off\nfull_page_writes = off'
    fi
    # shellcheck disable=SC2016 # $1 is expanded by the inner shell, on purpose.
    as_owner sh -c 'cat > "$1"' sh "$CLUSTER_DIR/tessera-dev.conf" <<EOF
# Written by scripts/dev-db.sh at every start: change the script, not this file.
# No TCP, only the Unix socket below.
listen_addresses = ''
unix_socket_directories = '$quoted'
port = $PORT
$durability
# swift test runs many harnesses at once, each with its own pool: leave room for them.
max_connections = 400
EOF
}

# Makes the socket directory when it lives under /tmp, and refuses one that someone else owns.
prepare_socket_dir() {
    local sockets=$1
    [[ $sockets == "$CLUSTER_DIR" ]] && return 0
    if [[ ! -d $sockets ]]; then
        mkdir -m 0755 "$sockets"
        if is_root; then
            chown "$SUPERUSER:" "$sockets"
        fi
    fi
    local owner expected=$SUPERUSER
    owner=$(stat -c %U "$sockets")
    is_root || expected=$(id -un)
    [[ $owner == "$expected" ]] || die "socket directory $sockets belongs to $owner, not $expected; remove it"
}

# Creates each database in DATABASES that does not exist yet.
create_databases() {
    local bin=$1 sockets=$2 existing name
    existing=$("$bin/psql" -X -q -A -t -h "$sockets" -p "$PORT" -U "$SUPERUSER" -d postgres \
        -c 'SELECT datname FROM pg_database') || die "cannot query the cluster through $sockets"
    for name in "${DATABASES[@]}"; do
        if ! grep -qx -- "$name" <<<"$existing"; then
            "$bin/createdb" -h "$sockets" -p "$PORT" -U "$SUPERUSER" "$name"
            say "created database $name"
        fi
    done
}

start() {
    local bin sockets
    bin=$(server_bin_dir)
    sockets=$(socket_dir)
    if is_root; then
        id -u "$SUPERUSER" >/dev/null 2>&1 || die "no '$SUPERUSER' user on this machine (run 'make deps')"
    fi
    mkdir -p "$DATA_ROOT"
    if is_root; then
        chmod o+x "$DATA_ROOT"
    fi
    mkdir -p "$(dirname "$CLUSTER_DIR")"
    require_reachable_by_owner "$(dirname "$CLUSTER_DIR")"
    [[ -f $CLUSTER_DIR/PG_VERSION ]] || create_cluster "$bin"

    if is_running; then
        resume_stopped_backends
        create_databases "$bin" "$sockets"
        database_url tessera
        return
    fi
    remove_stale_state
    prepare_socket_dir "$sockets"
    require_reachable_by_owner "$sockets"
    write_settings "$sockets"
    if ! as_owner "$bin/pg_ctl" --pgdata="$CLUSTER_DIR" --log="$SERVER_LOG" --wait --timeout=60 --silent start \
        >/dev/null; then
        tail -n 20 "$SERVER_LOG" >&2 2>/dev/null || true
        die "PostgreSQL did not start; its log is $SERVER_LOG"
    fi
    say "PostgreSQL started (socket in $sockets)"
    create_databases "$bin" "$sockets"
    database_url tessera
}

stop() {
    if ! is_running; then
        if [[ -f $CLUSTER_DIR/PG_VERSION ]]; then
            remove_stale_state
        fi
        say "PostgreSQL is not running"
        return 0
    fi
    local bin
    bin=$(server_bin_dir)
    as_owner "$bin/pg_ctl" --pgdata="$CLUSTER_DIR" --mode=fast --wait --timeout=60 --silent stop
    say "PostgreSQL stopped"
}

status() {
    if is_running; then
        printf 'running (pid %s), socket in %s\n' "$(recorded_pid)" "$(socket_dir)"
        database_url tessera
        return 0
    fi
    if [[ -f $CLUSTER_DIR/PG_VERSION ]]; then
        printf 'not running (cluster in %s)\n' "$CLUSTER_DIR"
    else
        printf 'not running (no cluster yet; scripts/dev-db.sh start makes one)\n'
    fi
    return 3
}

open_psql() {
    local bin database=${1:-tessera}
    shift || true
    is_running || die "PostgreSQL is not running (scripts/dev-db.sh start)"
    bin=$(server_bin_dir)
    exec "$bin/psql" -h "$(socket_dir)" -p "$PORT" -U "$SUPERUSER" "$database" "$@"
}

# Stops the cluster and deletes its folder (and its folder under /var/lib/tessera-dev, when it has one).
remove() {
    stop
    rm -rf "$CLUSTER_DIR"
    local parent
    parent=$(dirname "$CLUSTER_DIR")
    if [[ $parent == /var/lib/tessera-dev/* ]]; then rmdir "$parent" 2>/dev/null || true; fi
}

place_cluster
case ${1:-} in
    start) start ;;
    remove) remove ;;
    stop) stop ;;
    status) status ;;
    url) database_url "${2:-tessera}" ;;
    psql) open_psql "${@:2}" ;;
    *) usage ;;
esac
