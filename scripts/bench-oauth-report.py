#!/usr/bin/env python3
"""Turns the OAuth load generator's JSON lines into the table, the CSV and the plot of `make bench`.

Run by scripts/bench-oauth.sh; it prints the table and writes OUT.txt, OUT.csv and OUT.png.
Targets: the cycle's operations/s at the headline concurrency >= 0.5 x the pgbench ceiling (the
mean of the runs before and after), and its p99 < 20 ms there. A miss prints BELOW TARGET; it is
not an error.
"""
import argparse
import csv
import json
import sys

CYCLE_RATIO_TARGET = 0.5
CYCLE_P99_TARGET_MS = 20.0
SCENARIOS = ["cycle", "refresh", "client_credentials"]
UNITS = {"cycle": "cycles/s", "refresh": "rotations/s", "client_credentials": "grants/s"}
CSV_FIELDS = ["scenario", "phase", "concurrency", "seconds", "operations", "operations_per_second",
              "requests_per_second", "p50_ms", "p90_ms", "p99_ms", "max_ms", "errors",
              "authorize_p50_ms", "authorize_p99_ms", "token_p50_ms", "token_p99_ms",
              "server_cpu_us_per_op", "db_cpu_us_per_op", "db_transactions_per_op", "generator_cpu_us_per_op",
              "server_preemptions_per_op", "server_sleeps_per_op"]


def read_rows(path):
    rows = []
    with open(path, encoding="utf-8") as raw:
        for number, line in enumerate(raw, 1):
            line = line.strip()
            if not line:
                continue
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as error:
                sys.exit(f"bench-oauth-report: {path}:{number} is not JSON: {error}")
    if not rows:
        sys.exit(f"bench-oauth-report: {path} holds no measurement")
    return rows


def mean_ceiling_p99(args):
    """The ceiling's p99 latency in ms: the mean of its runs before and after the scenarios."""
    return (args.ceiling_before_percentiles[1] + args.ceiling_after_percentiles[1]) / 2


def table(rows, args):
    ceiling = (args.ceiling_before + args.ceiling_after) / 2
    lines = [args.title, ""]
    header = f"{'scenario':<20} {'phase':<9} {'conc.':>5} {'ops/s':>10} {'req/s':>10} {'p50 ms':>8} " \
             f"{'p90 ms':>8} {'p99 ms':>8} {'max ms':>8} {'errors':>7}"
    lines.append(header)
    order = {name: index for index, name in enumerate(SCENARIOS)}
    for row in sorted(rows, key=lambda r: (r["phase"] != "headline", order.get(r["scenario"], 9), r["concurrency"])):
        lines.append(f"{row['scenario']:<20} {row['phase']:<9} {row['concurrency']:>5} "
                     f"{row['operations_per_second']:>10.1f} {row['requests_per_second']:>10.1f} "
                     f"{row['p50_ms']:>8.2f} {row['p90_ms']:>8.2f} {row['p99_ms']:>8.2f} {row['max_ms']:>8.2f} "
                     f"{row['errors']:>7}")
    lines.append("")
    lines.append(f"ceiling: pgbench token cycle -M prepared -c16 -j2: before {args.ceiling_before:.1f}, "
                 f"after {args.ceiling_after:.1f}, mean {ceiling:.1f} cycles/s "
                 f"(latency avg {args.ceiling_before_avg:.3f} / {args.ceiling_after_avg:.3f} ms, "
                 f"p50 {args.ceiling_before_percentiles[0]:.2f} / {args.ceiling_after_percentiles[0]:.2f} ms, "
                 f"p99 {args.ceiling_before_percentiles[1]:.2f} / {args.ceiling_after_percentiles[1]:.2f} ms)")
    floor = (args.floor_before + args.floor_after) / 2
    lines.append(f"floor: pgbench one-transaction grant (pg_one_tx_cycle.sql): before {args.floor_before:.1f}, "
                 f"after {args.floor_after:.1f}, mean {floor:.1f} cycles/s")
    headline_cycle = next((r for r in rows if r["scenario"] == "cycle" and r["phase"] == "headline"), None)
    if headline_cycle is not None and floor > 0:
        lines.append(f"cycle / floor            {headline_cycle['operations_per_second'] / floor:5.2f}  (what the "
                     "schema and the server add to the least a grant must write)")
    if headline_cycle is None:
        lines.append("cycle not measured: no ratio")
    else:
        if "authorize" in headline_cycle:
            authorize, token = headline_cycle["authorize"], headline_cycle["token"]
            lines.append(f"cycle at {args.headline}, per request: GET /oauth2/authorize p50 {authorize['p50_ms']:.2f} "
                         f"p99 {authorize['p99_ms']:.2f} ms; POST /oauth2/token p50 {token['p50_ms']:.2f} "
                         f"p99 {token['p99_ms']:.2f} ms")
        ratio = headline_cycle["operations_per_second"] / ceiling if ceiling > 0 else 0.0
        verdict = "met" if ratio >= CYCLE_RATIO_TARGET else "BELOW TARGET"
        lines.append(f"cycle / ceiling          {ratio:5.2f}  (target >= {CYCLE_RATIO_TARGET:.2f})  {verdict}")
        p99 = headline_cycle["p99_ms"]
        verdict = "met" if p99 < CYCLE_P99_TARGET_MS else "BELOW TARGET"
        lines.append(f"cycle p99 at {args.headline:<3}         {p99:5.2f} ms  (target < {CYCLE_P99_TARGET_MS:.0f} ms)  "
                     f"{verdict}")
        ceiling_p99 = mean_ceiling_p99(args)
        lines.append(f"cycle p99 / ceiling p99  {p99 / ceiling_p99 if ceiling_p99 > 0 else 0.0:5.2f}  (the ceiling's "
                     "own cycle at 16 clients, its database work alone: the mean of its two runs)")
    lines.append("")
    lines.append(f"cost per operation at {args.headline} (CPU from /proc, transactions from pg_stat_database):")
    for row in rows:
        if row["phase"] != "headline" or "server_cpu_us_per_op" not in row:
            continue
        lines.append(f"  {row['scenario']:<20} server CPU {row['server_cpu_us_per_op']:7.0f} us   "
                     f"database CPU {row.get('db_cpu_us_per_op', 0):7.0f} us   "
                     f"database transactions {row.get('db_transactions_per_op', 0):5.2f}   "
                     f"generator CPU {row.get('generator_cpu_us_per_op', 0):5.0f} us")
    lines.append(f"  {'ceiling cycle':<20} {'':>21}   database CPU {args.ceiling_db_cpu:7.0f} us   "
                 "database transactions  2.00   (pgbench's own CPU left out)")
    lines.append(f"  {'floor cycle':<20} {'':>21}   database CPU {args.floor_db_cpu:7.0f} us   "
                 "database transactions  1.00")
    if args.floor_at_cycle_rate:
        rate, floor_db = args.floor_at_cycle_rate
        lines.append(f"  {'floor at the cycle':<20} {'':>21}   database CPU {floor_db:7.0f} us   "
                     f"database transactions  1.00   (at {rate:.0f} cycles/s, the cycle's rate; "
                     "its client backends, as above)")
        if headline_cycle is not None and floor_db > 0 and "db_cpu_us_per_op" in headline_cycle:
            lines.append(f"cycle database CPU / the floor's at the same rate  "
                         f"{headline_cycle['db_cpu_us_per_op'] / floor_db:5.2f}  (what the schema adds, the rate "
                         "being equal: a database's CPU per transaction rises as its rate falls)")
    switching = [row for row in rows if row["phase"] == "headline" and "server_preemptions_per_op" in row]
    if switching:
        lines.append(f"server task switches per operation at {args.headline} (its threads' /proc/PID/task/*/status: "
                     "preempted, another thread took a loop's CPU; slept, a loop had nothing to do):")
        for row in switching:
            lines.append(f"  {row['scenario']:<20} preempted {row['server_preemptions_per_op']:5.2f}   "
                         f"slept {row.get('server_sleeps_per_op', 0):5.2f}")
    lines.append(f"CPU steal during the run: {args.steal_percent:.1f} % of the machine's time (time a hypervisor "
                 "gave to other machines; above a few percent, every figure here is smaller than the hardware's)")
    errors = sum(r["errors"] for r in rows)
    if errors:
        kinds = {}
        for row in rows:
            for kind, count in row.get("error_kinds", {}).items():
                kinds[kind] = kinds.get(kind, 0) + count
        lines.append(f"errors: {errors} ({', '.join(f'{k} {v}' for k, v in sorted(kinds.items()))}); "
                     "the generator's stderr names the first of each kind")
    return "\n".join(lines) + "\n"


def write_csv(rows, path):
    with open(path, "w", newline="", encoding="utf-8") as out:
        writer = csv.DictWriter(out, fieldnames=CSV_FIELDS, extrasaction="ignore")
        writer.writeheader()
        for row in rows:
            flat = dict(row)
            for request in ("authorize", "token"):
                for field in ("p50_ms", "p99_ms"):
                    flat[f"{request}_{field}"] = row.get(request, {}).get(field, "")
            writer.writerow(flat)


def plot(rows, args, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    ceiling = (args.ceiling_before + args.ceiling_after) / 2
    figure, (throughput, latency) = plt.subplots(1, 2, figsize=(12, 4.8))
    colors = {"cycle": "tab:blue", "refresh": "tab:orange", "client_credentials": "tab:green"}
    for scenario in SCENARIOS:
        sweep = sorted((r for r in rows if r["scenario"] == scenario and r["phase"] == "sweep"),
                       key=lambda r: r["concurrency"])
        if not sweep:
            continue
        x = [r["concurrency"] for r in sweep]
        color = colors[scenario]
        throughput.plot(x, [r["operations_per_second"] for r in sweep], "o-", color=color,
                        label=f"{scenario} ({UNITS[scenario]})")
        latency.plot(x, [r["p50_ms"] for r in sweep], "o-", color=color, label=f"{scenario} p50")
        latency.plot(x, [r["p99_ms"] for r in sweep], "s--", color=color, label=f"{scenario} p99")
    if ceiling > 0:
        throughput.axhline(ceiling, color="gray", linestyle=":", label="pgbench token-cycle ceiling (c=16)")
        throughput.axhline(ceiling * CYCLE_RATIO_TARGET, color="tab:red", linestyle=":",
                           label=f"cycle target ({CYCLE_RATIO_TARGET} x ceiling)")
    latency.axhline(CYCLE_P99_TARGET_MS, color="tab:red", linestyle=":", label="cycle p99 target (20 ms)")
    ceiling_p99 = mean_ceiling_p99(args)
    if ceiling_p99 > 0:
        latency.axhline(ceiling_p99, color="gray", linestyle=":", label="pgbench token-cycle ceiling p99 (c=16)")
    levels = sorted({r["concurrency"] for r in rows if r["phase"] == "sweep"})
    for axis in (throughput, latency):
        axis.set_xscale("log", base=2)
        if levels:
            axis.set_xticks(levels)
        axis.xaxis.set_major_formatter(matplotlib.ticker.ScalarFormatter())
        axis.set_xlabel("concurrency (virtual users, one connection each)")
        axis.grid(True, which="both", alpha=0.3)
        axis.legend(fontsize=7)
    throughput.set_ylabel("operations / s")
    throughput.set_ylim(bottom=0)
    throughput.set_title("throughput")
    latency.set_yscale("log")
    latency.set_ylabel("latency per operation (ms)")
    latency.set_title("latency (p50 solid, p99 dashed)")
    figure.suptitle(args.title, fontsize=8)
    figure.tight_layout()
    figure.savefig(path, dpi=110)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--raw", required=True, help="the generator's JSON lines")
    parser.add_argument("--out", required=True, help="output path without extension")
    parser.add_argument("--headline", type=int, required=True)
    parser.add_argument("--ceiling-before", type=float, required=True)
    parser.add_argument("--ceiling-after", type=float, required=True)
    parser.add_argument("--ceiling-before-avg", type=float, required=True)
    parser.add_argument("--ceiling-after-avg", type=float, required=True)
    parser.add_argument("--ceiling-before-percentiles", type=float, nargs=2, required=True, metavar=("P50", "P99"),
                        help="the ceiling's p50 and p99 latency before the scenarios (ms)")
    parser.add_argument("--ceiling-after-percentiles", type=float, nargs=2, required=True, metavar=("P50", "P99"),
                        help="the ceiling's p50 and p99 latency after them (ms)")
    parser.add_argument("--ceiling-db-cpu", type=float, required=True,
                        help="the database's CPU per ceiling cycle (us), for comparison with the cycle's")
    parser.add_argument("--floor-before", type=float, required=True)
    parser.add_argument("--floor-after", type=float, required=True)
    parser.add_argument("--floor-db-cpu", type=float, required=True,
                        help="the database's CPU per one-transaction floor cycle (us)")
    parser.add_argument("--floor-at-cycle-rate", type=float, nargs=2, metavar=("RATE", "DB_CPU"),
                        help="the floor run at the headline cycle's rate (pgbench -R): its cycles/s and its client "
                             "backends' CPU per cycle (us), measured as the generator measures the cycle's")
    parser.add_argument("--steal-percent", type=float, default=0.0,
                        help="share of the machine's CPU time the hypervisor stole during the run")
    parser.add_argument("--title", required=True)
    args = parser.parse_args()
    rows = read_rows(args.raw)
    text = table(rows, args)
    with open(args.out + ".txt", "w", encoding="utf-8") as out:
        out.write(text)
    sys.stdout.write(text)
    write_csv(rows, args.out + ".csv")
    plot(rows, args, args.out + ".png")


if __name__ == "__main__":
    main()
