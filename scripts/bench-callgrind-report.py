#!/usr/bin/env python3
"""Prints where a callgrind dump of `tessera serve` spent its instructions, per operation (scripts/bench-callgrind.sh).

Usage: bench-callgrind-report.py SCENARIO DUMP IDLE_DUMP REQUESTS_PER_OPERATION LIMIT

The requests are counted in DUMP itself: the calls of `HTTPServerConnection.startHandler`, which starts the handler of
each request the server has read (a window in which no other request is made, so only the load's). The instructions
of IDLE_DUMP (the server with no request, over a window as long) are taken off the totals. First one row: the
scenario, its requests and operations, instructions per request and per operation, and per operation without
OpenSSL's (whose count of the same work moves by about 2 % between runs). Then three lists, each in
instructions per operation: the instructions each library ran itself; the LIMIT functions that ran the most
instructions themselves; the instructions of Tessera's modules' own code. Inclusive costs are left out:
callgrind follows calls, not the resumptions of async functions, so what it charges to a caller is not what the
caller caused. Names are demangled with `$SWIFT demangle --simplified`.
"""
import collections
import os
import re
import subprocess
import sys

ROW = re.compile(r"\s*([\d,]+) \(\s*[\d.]+%\)\s+(.*?) \[(.*)\]$")


def own_rows(dump):
    """The total, and (instructions, function, object file, source file) for every function of DUMP: the instructions
    each ran itself, from callgrind_annotate."""
    out = subprocess.run(["callgrind_annotate", "--inclusive=no", "--threshold=100", dump],
                         capture_output=True, text=True, check=True).stdout
    total, found = None, []
    for line in out.splitlines():
        if "PROGRAM TOTALS" in line:
            total = int(line.split()[0].replace(",", ""))
            continue
        m = ROW.match(line)
        if m:
            source, _, name = m.group(2).partition(":")
            found.append((int(m.group(1).replace(",", "")), name, os.path.basename(m.group(3)), source))
    return total, found


# The mangled name of `HTTPServerConnection.startHandler(_:)`: one call for each request read.
START_HANDLER = "$s11TesseraHTTP20HTTPServerConnectionC12startHandleryyAA11HTTPRequestVF"


def calls(dump, function):
    """How many times DUMP records calls of FUNCTION (a mangled name), from its `cfn=` and `calls=` lines."""
    names, target, count = {}, None, 0
    with open(dump) as lines:
        for line in lines:
            if line.startswith(("fn=", "cfn=")):
                key, _, rest = line.rstrip("\n").partition("=")
                ident, _, name = rest.partition(" ")
                if name:
                    names[ident] = name
                target = names.get(ident) if key == "cfn" else None
            elif line.startswith("calls=") and target == function:
                count += int(line.split()[0][len("calls="):])
    return count


def total_instructions(dump):
    with open(dump) as lines:
        for line in lines:
            if line.startswith("summary:"):
                return int(line.split()[1])
    sys.exit(f"no summary line in {dump}")


def demangled(names):
    swift = os.environ.get("SWIFT", "swift")
    out = subprocess.run([swift, "demangle", "--simplified"], input="\n".join(names), capture_output=True, text=True)
    lines = out.stdout.splitlines()
    return lines if out.returncode == 0 and len(lines) == len(names) else list(names)


def main():
    scenario, dump, idle_dump = sys.argv[1:4]
    per_op, limit = float(sys.argv[4]), int(sys.argv[5])
    requests = calls(dump, START_HANDLER)
    if requests == 0:
        sys.exit(f"{dump} records no call of {START_HANDLER}: was it renamed or inlined?")
    per_request = (total_instructions(dump) - total_instructions(idle_dump)) / requests
    scale = per_op / requests
    total, own = own_rows(dump)
    # A dump taken while the loops run charges a few frames that are still on the stack (clone, the loops' run)
    # with everything below them as their own cost: those are not any function's own work.
    own = [r for r in own if r[0] < 0.99 * total]
    by_library = collections.Counter()
    for count, _, library, _ in own:
        by_library[library] += count
    # OpenSSL's count of the same work moves by about 2 % from run to run, more than most changes to the rest: the
    # last column is what to compare two builds by (the idle window runs no OpenSSL).
    openssl = sum(count for library, count in by_library.items() if library.startswith("libcrypto"))
    print(f"{scenario:20} {requests:10d} {requests / per_op:10.0f} {per_request:16.0f} {per_request * per_op:18.0f}"
          f" {per_request * per_op - openssl * scale:18.0f}")
    print("  where, per operation (the idle window not taken off):")
    print("  by library, instructions run in it (of %.0f an operation):" % (total * scale))
    for library, count in by_library.most_common(8):
        print(f"  {count * scale:10.0f}  {library}")
    top_own = sorted(own, reverse=True)[:limit]
    print(f"  the {limit} functions that ran the most instructions themselves:")
    for (count, _, library, _), name in zip(top_own, demangled([r[1] for r in top_own])):
        print(f"  {count * scale:10.0f}  {name[:130]}  ({library})")
    modules = collections.Counter()
    for count, _, _, source in own:
        source = re.match(r"(?:\S*/)?Sources/(\w+)/", source)
        if source:
            modules[source.group(1)] += count
    print("  Tessera's modules, instructions run in their own code:")
    for module, count in modules.most_common(limit):
        print(f"  {count * scale:10.0f}  {module}")


if __name__ == "__main__":
    main()
