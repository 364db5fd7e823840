#!/usr/bin/env python3
"""Turns the MFA benchmark's JSON lines (`OAuthLoad mfa`) into the table and the CSV of scripts/bench-mfa.sh.

Run by scripts/bench-mfa.sh; it prints the table and writes OUT.txt and OUT.csv.
Target: the remote TOTP factor's finalizes/s >= 0.7 x the in-process factor's, both at the headline
concurrency in the same run. A miss prints BELOW TARGET; it is not an error. Errors (any answer that is
not a TokenResult) are counted and printed; a run with errors says so in capitals.
"""
import argparse
import csv
import json
import sys

RATIO_TARGET = 0.7
IN_PROCESS = "totp_in_process"
REMOTE = "totp_remote"
SCENARIOS = [IN_PROCESS, REMOTE]
CSV_FIELDS = ["round", "scenario", "factor", "window", "concurrency", "seconds", "operations",
              "operations_per_second", "p50_ms", "p90_ms", "p99_ms", "max_ms", "errors", "error_kinds",
              "operations_total", "seconds_total", "pool", "pool_limited", "unused_credentials",
              "server_cpu_us_per_op", "factor_cpu_us_per_op", "db_cpu_us_per_op", "db_transactions_per_op",
              "generator_cpu_us_per_op"]
CPU_FIELDS = [("server_cpu_us_per_op", "server CPU"), ("factor_cpu_us_per_op", "factor service CPU"),
              ("db_cpu_us_per_op", "database CPU"), ("db_transactions_per_op", "database transactions"),
              ("generator_cpu_us_per_op", "generator CPU")]


def read_rows(path):
    measurements, prepares = [], []
    with open(path, encoding="utf-8") as raw:
        for number, line in enumerate(raw, 1):
            line = line.strip()
            if not line:
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as error:
                sys.exit(f"bench-mfa-report: {path}:{number} is not JSON: {error}")
            (prepares if row.get("kind") == "prepare" else measurements).append(row)
    if not measurements:
        sys.exit(f"bench-mfa-report: {path} holds no measurement")
    return measurements, prepares


def combined(rows):
    """One scenario over its rounds: the rate over all measured time, the rounds' mean latencies, and the CPU
    figures weighted by each round's operations."""
    operations = sum(r["operations"] for r in rows)
    seconds = sum(r["seconds"] for r in rows)
    total_ops = sum(r.get("operations_total", r["operations"]) for r in rows)
    result = {
        "rounds": len(rows),
        "operations": operations,
        "seconds": seconds,
        "operations_per_second": operations / seconds if seconds > 0 else 0.0,
        "p50_ms": sum(r["p50_ms"] for r in rows) / len(rows),
        "p90_ms": sum(r["p90_ms"] for r in rows) / len(rows),
        "p99_ms": sum(r["p99_ms"] for r in rows) / len(rows),
        "max_ms": max(r["max_ms"] for r in rows),
        "errors": sum(r["errors"] for r in rows),
        "pool_limited": any(r.get("pool_limited") for r in rows),
        "all_operations_per_second": total_ops / sum(r.get("seconds_total", r["seconds"]) for r in rows),
    }
    for field, _ in CPU_FIELDS:
        weighted = [(r[field], r.get("operations_total", r["operations"])) for r in rows if field in r]
        if weighted and total_ops > 0:
            result[field] = sum(value * ops for value, ops in weighted) / sum(ops for _, ops in weighted)
    return result


def table(rows, prepares, args):
    lines = [args.title, ""]
    lines.append(f"mfaSignIn.finalize with a TOTP code, {args.headline} virtual users (each finalize spends a "
                 "pending credential prepared beforehand by a password sign-in)")
    lines.append("")
    header = f"{'round':>5} {'scenario':<16} {'window':>6} {'ops/s':>9} {'p50 ms':>8} {'p90 ms':>8} " \
             f"{'p99 ms':>8} {'max ms':>8} {'errors':>6} {'measured':>16} {'all ops/s':>9} {'server us':>9} " \
             f"{'factor us':>9} {'db us':>7}"
    lines.append(header)
    order = {name: index for index, name in enumerate(SCENARIOS)}
    for row in sorted(rows, key=lambda r: (r.get("round", 0), order.get(r["scenario"], 9))):
        measured = f"{row['operations']} in {row['seconds']:.2f}s"
        factor = row.get("factor_cpu_us_per_op") if row["scenario"] == REMOTE else None
        total_seconds = row.get("seconds_total", row["seconds"])
        all_rate = row.get("operations_total", row["operations"]) / total_seconds if total_seconds > 0 else 0.0
        lines.append(
            f"{row.get('round', 0):>5} {row['scenario']:<16} {row.get('window', 0):>6} "
            f"{row['operations_per_second']:>9.1f} {row['p50_ms']:>8.2f} {row['p90_ms']:>8.2f} "
            f"{row['p99_ms']:>8.2f} {row['max_ms']:>8.2f} {row['errors']:>6} {measured:>16} {all_rate:>9.1f} "
            f"{row.get('server_cpu_us_per_op', 0):>9.0f} "
            f"{(f'{factor:.0f}' if factor is not None else '-'):>9} "
            f"{row.get('db_cpu_us_per_op', 0):>7.0f}")
    lines.append("(ops/s: the operations that finished while every virtual user still had credentials, over that "
                 "time; all ops/s: every operation over the whole measurement, with its tail of fewer users; CPU in "
                 "us per operation. The database transactions per operation are in the CSV only: PostgreSQL "
                 "reports an idle backend's counts up to 10 s late, too late for measurements this short)")
    lines.append("")

    summary = {name: combined([r for r in rows if r["scenario"] == name]) for name in SCENARIOS
               if any(r["scenario"] == name for r in rows)}
    lines.append(f"{'all rounds':<27} {'ops/s':>9} {'p50 ms':>8} {'p99 ms':>8} {'errors':>6} "
                 f"{'server us/op':>12} {'factor us/op':>12} {'server+factor':>13} {'db us/op':>8} "
                 f"{'gen. us/op':>10}")
    for name, s in summary.items():
        factor = s.get("factor_cpu_us_per_op") if name == REMOTE else None
        both = s.get("server_cpu_us_per_op", 0) + (factor or 0)
        lines.append(f"{name:<27} {s['operations_per_second']:>9.1f} {s['p50_ms']:>8.2f} {s['p99_ms']:>8.2f} "
                     f"{s['errors']:>6} {s.get('server_cpu_us_per_op', 0):>12.0f} "
                     f"{(f'{factor:.0f}' if factor is not None else '-'):>12} {both:>13.0f} "
                     f"{s.get('db_cpu_us_per_op', 0):>8.0f} {s.get('generator_cpu_us_per_op', 0):>10.0f}")
    lines.append("(ops/s: all measured operations over all measured seconds; p50, p99: the mean of the rounds'; "
                 "CPU: per operation, weighted by the rounds' operations)")
    lines.append("")

    limited = [r for r in rows if r.get("pool_limited")]
    if limited:
        shortest = min(r["seconds"] for r in limited)
        lines.append(f"NOTE: {len(limited)} of {len(rows)} measurements ended when their prepared pending "
                     f"credentials ran out, before {args.seconds}s (the shortest measured {shortest:.2f}s): "
                     "the rate is the operations that finished while every virtual user still had credentials, "
                     "over that time. Each credential costs a password sign-in (scrypt) beforehand; raise "
                     "BENCH_MFA_OPERATIONS for longer measurements.")
    for prepare in prepares:
        lines.append(f"round {prepare['round']}: {prepare['credentials']} pending credentials prepared in "
                     f"{prepare['seconds']:.1f}s ({prepare['sign_ins_per_second']:.1f} password sign-ins/s)")
    unused = sum(r.get("unused_credentials", 0) for r in rows)
    if unused:
        lines.append(f"{unused} prepared credentials were left unspent: their enrolment had no usable TOTP step left")

    errors = sum(r["errors"] for r in rows)
    if errors:
        kinds = {}
        for row in rows:
            for kind, count in row.get("error_kinds", {}).items():
                kinds[kind] = kinds.get(kind, 0) + count
        detail = ", ".join(f"{kind} {count}" for kind, count in sorted(kinds.items()))
        lines.append(f"ERRORS: {errors} finalizes did not answer a TokenResult ({detail}); see the generator's "
                     "stderr and the servers' logs")
    else:
        lines.append("errors: none (every finalize answered a TokenResult)")
    lines.append("")

    if IN_PROCESS in summary and REMOTE in summary and summary[IN_PROCESS]["operations_per_second"] > 0:
        local, remote = summary[IN_PROCESS], summary[REMOTE]
        ratio = remote["operations_per_second"] / local["operations_per_second"]
        verdict = "meets target" if ratio >= RATIO_TARGET else "BELOW TARGET"
        if errors:
            verdict += ("; NOT VALID: the run had errors, which are quick and spend credentials unevenly, so the "
                        "rates, latencies and CPU per operation above do not describe successful finalizes")
        lines.append(f"remote / in-process finalizes/s = {remote['operations_per_second']:.1f} / "
                     f"{local['operations_per_second']:.1f} = {ratio:.2f} (target >= {RATIO_TARGET}): {verdict}")
        per_round = []
        for number in sorted({r.get("round", 0) for r in rows}):
            pair = {r["scenario"]: r for r in rows if r.get("round", 0) == number}
            if IN_PROCESS in pair and REMOTE in pair and pair[IN_PROCESS]["operations_per_second"] > 0:
                per_round.append(f"round {number} "
                                 f"{pair[REMOTE]['operations_per_second'] / pair[IN_PROCESS]['operations_per_second']:.2f}")
        if per_round:
            lines.append("  per round: " + ", ".join(per_round))
        if local["all_operations_per_second"] > 0:
            lines.append(f"  counting every operation and the whole measurement (all ops/s): "
                         f"{remote['all_operations_per_second']:.1f} / {local['all_operations_per_second']:.1f} = "
                         f"{remote['all_operations_per_second'] / local['all_operations_per_second']:.2f}")
        if local["p99_ms"] > 0:
            lines.append(f"p99 remote / in-process = {remote['p99_ms']:.2f} / {local['p99_ms']:.2f} ms = "
                         f"{remote['p99_ms'] / local['p99_ms']:.2f}")
        if "server_cpu_us_per_op" in local and "server_cpu_us_per_op" in remote:
            both = remote["server_cpu_us_per_op"] + remote.get("factor_cpu_us_per_op", 0)
            lines.append(f"CPU per finalize: in-process server {local['server_cpu_us_per_op']:.0f} us; remote server "
                         f"{remote['server_cpu_us_per_op']:.0f} us + factor service "
                         f"{remote.get('factor_cpu_us_per_op', 0):.0f} us = {both:.0f} us "
                         f"({both / local['server_cpu_us_per_op']:.2f} x)")
    else:
        lines.append("the in-process and the remote factor were not both measured: no ratio")
    lines.append(f"CPU stolen by the hypervisor during the run: {args.steal_percent}%")
    return "\n".join(lines) + "\n"


def write_csv(rows, path):
    with open(path, "w", newline="", encoding="utf-8") as out:
        writer = csv.DictWriter(out, fieldnames=CSV_FIELDS, extrasaction="ignore")
        writer.writeheader()
        for row in rows:
            flat = dict(row)
            flat["error_kinds"] = ";".join(f"{k}={v}" for k, v in sorted(row.get("error_kinds", {}).items()))
            writer.writerow(flat)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--raw", required=True, help="the generator's JSON lines")
    parser.add_argument("--out", required=True, help="OUT: writes OUT.txt and OUT.csv")
    parser.add_argument("--headline", type=int, default=16)
    parser.add_argument("--seconds", type=int, default=10, help="the longest a measurement was allowed to run")
    parser.add_argument("--steal-percent", default="0.0")
    parser.add_argument("--title", default="MFA benchmark")
    args = parser.parse_args()
    rows, prepares = read_rows(args.raw)
    text = table(rows, prepares, args)
    with open(args.out + ".txt", "w", encoding="utf-8") as out:
        out.write(text)
    write_csv(rows, args.out + ".csv")
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
