#!/usr/bin/env bash
# Database throughput of the token flow against this machine's ceiling (make bench).
#
# The ceiling is pgbench running ../shared/bench/pg_token_cycle.sql (the SQL of one
# authorize-plus-token cycle) with `-M prepared -c 16 -j 2`. The same two statements then run
# through TesseraPostgres (Benchmarks/ TokenCycleBench: 16 clients over 2 loops, pipelined
# prepared statements) for the same time. pgbench runs before and after Tessera and the
# ceiling is their mean, so a drift of the machine during the run shows and is shared.
# It prints cycles/s, p50, p99 and the ratio (target >= 0.7) and writes bench-results/db.txt.
#
# Environment:
#   SHARED          the shared folder (default: ../shared beside the repository)
#   BENCH_SECONDS   seconds per measurement (default 10)
#   SWIFT           the swift command (default swift)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

shared=${SHARED:-$TESSERA_ROOT/../shared}
seconds=${BENCH_SECONDS:-10}
swift=${SWIFT:-swift}
results_dir=$TESSERA_ROOT/bench-results
results=$results_dir/db.txt
scratch=$TESSERA_ROOT/.build-benchmarks
[[ $seconds =~ ^[0-9]+$ ]] && ((seconds > 0)) || die "BENCH_SECONDS must be a whole number of at least 1"
[[ -f $shared/bench/pg_token_cycle.sql ]] || die "no $shared/bench/pg_token_cycle.sql (set SHARED=...)"
command -v pgbench >/dev/null 2>&1 || die "pgbench is missing (run 'make deps')"
mkdir -p "$results_dir"
start_bench_cluster

say "building Benchmarks/ (release) in $scratch"
(cd "$TESSERA_ROOT/Benchmarks" && "$swift" build -c release --product TokenCycleBench --scratch-path "$scratch")

url=$(prepare_token_cycle_database tessera_bench "$shared")

# pgbench_rate: runs the ceiling once, prints "cycles/s latency-average-ms p50-ms p99-ms" (scripts/lib.sh).
pgbench_rate() {
    pgbench_token_cycle "$url" "$seconds" "$shared" || die "the pgbench ceiling could not be measured"
}

say "measuring pgbench (${seconds}s)"
read -r before _ before_p50 before_p99 < <(pgbench_rate)
[[ -n ${before:-} ]] || die "the pgbench ceiling could not be measured"
say "measuring TesseraPostgres (${seconds}s)"
ours=$("$scratch/release/TokenCycleBench" "$url" "$seconds" 16 2 8)
say "measuring pgbench again (${seconds}s)"
read -r after _ after_p50 after_p99 < <(pgbench_rate)
[[ -n ${after:-} ]] || die "the pgbench ceiling could not be measured"

rate=$(sed -E 's/.*rate=([0-9.]+).*/\1/' <<<"$ours")
p50=$(sed -E 's/.*p50_ms=([0-9.]+).*/\1/' <<<"$ours")
p99=$(sed -E 's/.*p99_ms=([0-9.]+).*/\1/' <<<"$ours")
{
    printf 'Token-cycle database benchmark, %s, commit %s, %s cores, %ss each\n\n' \
        "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$(git -C "$TESSERA_ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)" \
        "$(nproc)" "$seconds"
    printf '%-44s %12s %22s\n' target 'cycles/s' 'latency ms'
    printf '%-44s %12s %22s\n' "ceiling: pgbench -M prepared -c16 -j2 (before)" "$before" "p50 $before_p50 p99 $before_p99"
    printf '%-44s %12s %22s\n' "TesseraPostgres, 16 clients on 2 loops" "$rate" "p50 $p50 p99 $p99"
    printf '%-44s %12s %22s\n' "ceiling: pgbench (after)" "$after" "p50 $after_p50 p99 $after_p99"
    awk -v rate="$rate" -v a="$before" -v b="$after" 'BEGIN {
        ceiling = (a + b) / 2
        r = (ceiling > 0) ? rate / ceiling : 0
        printf("\nTesseraPostgres / ceiling  %.2f  (target >= 0.70)  %s\n", r, (r >= 0.7) ? "met" : "BELOW TARGET")
    }'
} | tee "$results"
say "results written to $results"
