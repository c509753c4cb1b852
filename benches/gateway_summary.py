#!/usr/bin/env python3
"""The summary of benches/gateway.sh: reads the JSON rows gateway_bench printed (stdin or
the files given) and prints, per transport and client count, the added p50 over the direct
call and the throughput through the gateway against direct, each against the goal of issue
38 (BENCHMARKS.md, "Gateway"), a miss marked MISS. Judges nothing: always exits 0 once the
rows are read (a smoke run's numbers mean nothing)."""

import json
import sys

# Added p50 with one client, ms; throughput gateway/direct, at any client count.
ADDED_P50_GOAL = {"stdio": 0.1, "http": 0.2}
THROUGHPUT_GOAL = 0.8


def rows(lines):
    cells = {}
    for line in lines:
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            continue
        if "path" in row:
            cells[(row["transport"], row["clients"], row["path"])] = row
    return cells


def main():
    lines = []
    if len(sys.argv) > 1:
        for name in sys.argv[1:]:
            with open(name, encoding="utf-8") as f:
                lines.extend(f)
    else:
        lines = sys.stdin.readlines()
    cells = rows(lines)
    keys = sorted({(t, c) for (t, c, _) in cells}, key=lambda k: (k[0] != "stdio", k[1]))
    print()
    print("Summary (issue 38's gateway goals; ratios within this run):")
    print("| transport | clients | added p50 ms | goal | throughput gateway/direct | goal |")
    print("|---|---|---|---|---|---|")
    misses = 0
    for transport, clients in keys:
        direct = cells.get((transport, clients, "direct"))
        gateway = cells.get((transport, clients, "gateway"))
        if direct is None or gateway is None:
            continue
        added = gateway["p50_ms"] - direct["p50_ms"]
        ratio = gateway["calls_per_s"] / direct["calls_per_s"] if direct["calls_per_s"] else 0.0
        goal = ADDED_P50_GOAL.get(transport) if clients == 1 else None
        if goal is None:
            p50_goal = "-"
        elif added <= goal:
            p50_goal = f"<= {goal} met"
        else:
            p50_goal = f"<= {goal} MISS by {added - goal:.3f}"
            misses += 1
        if ratio >= THROUGHPUT_GOAL:
            tp_goal = f">= {THROUGHPUT_GOAL}x met"
        else:
            tp_goal = f">= {THROUGHPUT_GOAL}x MISS by {THROUGHPUT_GOAL - ratio:.2f}"
            misses += 1
        print(f"| {transport} | {clients} | {added:+.3f} | {p50_goal} | {ratio:.2f}x | {tp_goal} |")
    print(f"{misses} goal(s) missed in this run." if misses else "Every goal met in this run.")


if __name__ == "__main__":
    main()
