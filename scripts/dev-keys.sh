#!/usr/bin/env bash
# Makes the development secrets once, and checks them every time after:
#   .data/dev-admin-key   a random admin key (64 hex digits), passed as --bootstrap-admin-key
#   .data/master.key      exactly 32 random bytes, mode 0600, passed as --master-key-file
# An existing file is never replaced: data encrypted under the master key would be lost.
# A file of the wrong shape is an error that names the file.
#
# Environment: TESSERA_DATA_DIR (default .data in the repository).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ADMIN_KEY_FILE=$DEV_ADMIN_KEY_FILE
MASTER_KEY_FILE=$DEV_MASTER_KEY_FILE
MASTER_KEY_BYTES=32

umask 077
mkdir -p "$TESSERA_DATA"

# Writes the output of a command to FILE atomically, so an interrupted run leaves no half key.
write_once() {
    local file=$1
    shift
    local partial=$file.partial.$$
    "$@" >"$partial"
    chmod 0600 "$partial"
    mv -f "$partial" "$file"
    say "generated $file"
}

random_hex() {
    od -An -v -tx1 -N 32 /dev/urandom | tr -d ' \n'
}

random_bytes() {
    head -c "$MASTER_KEY_BYTES" /dev/urandom
}

[[ -e $ADMIN_KEY_FILE ]] || write_once "$ADMIN_KEY_FILE" random_hex
[[ -e $MASTER_KEY_FILE ]] || write_once "$MASTER_KEY_FILE" random_bytes

[[ $(<"$ADMIN_KEY_FILE") =~ ^[0-9a-f]{64}$ ]] \
    || die "$ADMIN_KEY_FILE is not 64 hex digits; remove it to get a new one"
size=$(stat -c %s "$MASTER_KEY_FILE")
((size == MASTER_KEY_BYTES)) \
    || die "$MASTER_KEY_FILE holds $size bytes, not $MASTER_KEY_BYTES; restore it, or remove it (losing what it encrypts)"
mode=$(stat -c %a "$MASTER_KEY_FILE")
[[ $mode == 600 || $mode == 400 ]] || chmod 0600 "$MASTER_KEY_FILE"
