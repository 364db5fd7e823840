#!/usr/bin/env bash
# make fuzz: builds the libFuzzer targets of Tests/Fuzz (-sanitize=fuzzer,address, release) and runs each against a
# working copy of its committed seed corpus (Tests/Fuzz/Corpus/TARGET), for FUZZ_SECONDS each. New inputs stay in
# the working copy (.build-fuzz/corpus); a crash leaves its input in .build-fuzz/crashes and fails the run. It
# prints, and writes to .build-fuzz/report.txt, the executions and crashes of each target and their total.
#
# Environment:
#   FUZZ_SECONDS   seconds per target (default 60)
#   FUZZ_TARGETS   which targets (default: all nine)
#   SWIFT          the swift command (default swift)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

seconds=${FUZZ_SECONDS:-60}
targets=${FUZZ_TARGETS:-http_request json json_rpc form cookies redirect_uri sealed_code refresh_token jwt}
swift=${SWIFT:-swift}
scratch=$TESSERA_ROOT/.build-fuzz
[[ $seconds =~ ^[1-9][0-9]*$ ]] || die "FUZZ_SECONDS must be a whole number of at least 1, not '$seconds'"

say "building the fuzz targets (release, -sanitize=fuzzer,address) in $scratch"
"$swift" build -c release --package-path "$TESSERA_ROOT/Tests/Fuzz" --scratch-path "$scratch" \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -use-ld=lld
bin=$scratch/release/TesseraFuzz
[[ -x $bin ]] || die "the build left no binary at $bin"

mkdir -p "$scratch/crashes"
report=$scratch/report.txt
printf '%-14s %14s %8s %10s\n' target executions crashes 'exec/s' >"$report"
total=0
crashed=0
for target in $targets; do
    [[ -d $TESSERA_ROOT/Tests/Fuzz/Corpus/$target ]] || die "no seed corpus for '$target' in Tests/Fuzz/Corpus"
    work=$scratch/corpus/$target
    mkdir -p "$work"
    cp -n "$TESSERA_ROOT/Tests/Fuzz/Corpus/$target/"* "$work/" 2>/dev/null || true
    say "fuzzing $target for ${seconds}s"
    log=$scratch/$target.log
    status=0
    TESSERA_FUZZ_TARGET=$target "$bin" -max_total_time="$seconds" -print_final_stats=1 -max_len=8192 \
        -artifact_prefix="$scratch/crashes/$target-" "$work" >"$log" 2>&1 || status=$?
    runs=$(awk '/^stat::number_of_executed_units:/ { print $2 }' "$log" | tail -n 1)
    rate=$(awk '/^stat::average_exec_per_sec:/ { print $2 }' "$log" | tail -n 1)
    found=0
    if ((status != 0)); then
        found=1
        crashed=$((crashed + 1))
        say "error: $target crashed (exit $status); see $log and $scratch/crashes"
    fi
    total=$((total + ${runs:-0}))
    printf '%-14s %14s %8s %10s\n' "$target" "${runs:-0}" "$found" "${rate:-0}" >>"$report"
done
printf '%-14s %14s %8s\n' total "$total" "$crashed" >>"$report"
cat "$report"
((crashed == 0)) || die "$crashed target(s) crashed"
