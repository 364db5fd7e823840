#!/usr/bin/env bash
# The token path's CPU steps in instructions (make bench-steps): `valgrind --tool=callgrind` counts the instructions
# of each step of Benchmarks/ TokenPathSteps (an ES256 signature, an access token, a sealed code sealed and opened,
# a token request's form parsed). Unlike the load test's rates and CPU times, an instruction count does not move
# with the machine's load, so a change of a few percent in one step shows here, run after run.
#
# Each step runs twice under callgrind, ITERATIONS and 11 x ITERATIONS times; the difference divided by
# 10 x ITERATIONS is the step's cost per iteration, without the program's start and set-up. It prints a table and
# writes bench-results/steps.txt.
#
# Environment:
#   BENCH_STEPS_ITERATIONS  ITERATIONS above (default 200)
#   BENCH_STEPS_BINARY      a TokenPathSteps binary to measure instead of building one (say, one built from an
#                           earlier commit's checkout, to compare before and after)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

iterations=${BENCH_STEPS_ITERATIONS:-200}
[[ $iterations =~ ^[1-9][0-9]*$ ]] || die "BENCH_STEPS_ITERATIONS must be a whole number of at least 1, not '$iterations'"
command -v valgrind >/dev/null || die "no valgrind (apt-get install valgrind)"
binary=${BENCH_STEPS_BINARY:-}
if [[ -z $binary ]]; then
    say "building Benchmarks/ TokenPathSteps (release)"
    (cd "$TESSERA_ROOT/Benchmarks" && ${SWIFT:-swift} build -c release --product TokenPathSteps \
        --scratch-path "$TESSERA_ROOT/.build-benchmarks" >&2)
    binary=$TESSERA_ROOT/.build-benchmarks/release/TokenPathSteps
fi
[[ -x $binary ]] || die "no TokenPathSteps binary at '$binary'"
results_dir=$TESSERA_ROOT/bench-results
mkdir -p "$results_dir"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# instructions STEP N: the instructions callgrind counts for one run of STEP with N iterations.
instructions() {
    valgrind --tool=callgrind --callgrind-out-file="$work/out" "$binary" "$1" "$2" 2>"$work/log" \
        || die "TokenPathSteps $1 $2 failed under valgrind: $(tail -3 "$work/log")"
    grep -oP 'Collected : \K[0-9]+' "$work/log" || die "no instruction count from callgrind: $(tail -3 "$work/log")"
}

[[ -n $("$binary" --list) ]] || die "TokenPathSteps named no steps"
{
    printf 'Token path steps, %s, commit %s, binary %s, callgrind, %s and %s iterations\n\n' \
        "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$(git -C "$TESSERA_ROOT" rev-parse --short HEAD)" "$binary" \
        "$iterations" "$((11 * iterations))"
    printf '%-12s %13s  %s\n' step instructions 'one iteration'
    while IFS=$'\t' read -r step summary; do
        few=$(instructions "$step" "$iterations")
        many=$(instructions "$step" "$((11 * iterations))")
        printf '%-12s %13d  %s\n' "$step" "$(((many - few) / (10 * iterations)))" "$summary"
    done < <("$binary" --list)
} | tee "$results_dir/steps.txt"
