"""The summary of a `serve_http.sh` run, in markdown: its JSON lines as tables, and the ratios
the serving goals are stated in.

Usage: python3 serve_summary.py RESULTS.jsonl SECONDS CORES
"""

import json
import sys

TOOLBOX, BARE, PYTHON = "toolwright", "bare rmcp + TCP_NODELAY", "Python SDK"
PYTHON_JSON = "Python SDK, JSON responses"
# Lines without a "protocol" (runs before 2026-07-28 clients were measured) are handshake-era.
HANDSHAKE, MODERN = "2025-06-18", "2026-07-28"
CONCURRENCY = (1, 16, 64)
RPS_GOAL, P99_GOAL, MEMORY_GOAL = 0.95, 1.1, 1.0


def protocol(line):
    return line.get("protocol", HANDSHAKE)


def median(values):
    values = sorted(values)
    middle = len(values) // 2
    return values[middle] if len(values) % 2 else (values[middle - 1] + values[middle]) / 2


def merged(lines):
    """One cell from its rounds: the median of each figure, failures summed."""
    if len(lines) == 1:
        return lines[0]
    cell = dict(lines[-1])
    for key in ("rps", "p50_ms", "p99_ms"):
        cell[key] = median([l[key] for l in lines])
    cell["failed_or_timed_out"] = sum(l["failed_or_timed_out"] for l in lines)
    cell["rounds"] = len(lines)
    return cell


def mib(kib):
    return f"{kib / 1024:,.1f}"


def main() -> None:
    path, seconds, cores = sys.argv[1:4]
    lines = [json.loads(line) for line in open(path) if line.strip()]
    load = [l for l in lines if "concurrency" in l]
    idle = {l["server"]: l["idle_rss_kib"] for l in lines if "idle_rss_kib" in l}
    sessions = {l["server"]: l for l in lines if "idle_sessions" in l}
    stdio = [l for l in lines if "stdio" in l]
    skipped = [l for l in lines if "skipped" in l]
    # A cell measured in several rounds (serve_http.sh's ROUNDS) is shown as its median
    # round: requests per second, p50 and p99 each the median over the rounds.
    grouped = {}
    for l in load:
        grouped.setdefault((l["server"], protocol(l), l["concurrency"]), []).append(l)
    load = [merged(ls) for ls in grouped.values()]
    cell = {(l["server"], protocol(l), l["concurrency"]): l for l in load}
    out = []

    rounds = max((l.get("rounds", 1) for l in load), default=1)
    out.append(
        f"Streamable HTTP, `tools/call calculate {{\"expression\": \"1+2\"}}`, {seconds} s per cell, "
        f"client and server on the same {cores} cores"
        + (f"; cells measured in {rounds} rounds show the median round" if rounds > 1 else "")
        + ":\n"
    )
    out.append("| server | client | clients | req/s | p50 ms | p99 ms | failed | server RSS after, MiB |")
    out.append("|---|---|---|---|---|---|---|---|")
    for l in load:
        client = "2026-07-28, no session" if protocol(l) == MODERN else f"{protocol(l)}, initialize"
        out.append(
            f"| {l['server']} | {client} | {l['concurrency']} | {l['rps']:,.0f} | {l['p50_ms']:.2f} "
            f"| {l['p99_ms']:.2f} | {l['failed_or_timed_out']} | {mib(l['server_rss_kib'])} |"
        )

    out.append("\nMemory (VmRSS) just after start, and per idle session (`initialize` + `notifications/initialized`):\n")
    out.append("| server | idle RSS, MiB | idle sessions | RSS before → after, MiB | KiB per idle session |")
    out.append("|---|---|---|---|---|")
    for server, kib in idle.items():
        s = sessions.get(server)
        if s:
            per = f"{s['bytes_per_session'] / 1024:,.1f}"
            if s["without_session_id"]:
                per += f" ({s['without_session_id']:,} got no session id)"
            if s.get("refused"):
                per += f" ({s['refused']:,} refused: {s.get('first_refusal', '')})"
            out.append(
                f"| {server} | {mib(kib)} | {s['idle_sessions']:,} | {mib(s['server_rss_before_kib'])} → "
                f"{mib(s['server_rss_after_kib'])} | {per} |"
            )
        else:
            out.append(f"| {server} | {mib(kib)} | | | |")
    per_session = []
    for other in (BARE, PYTHON):
        if TOOLBOX in sessions and other in sessions and sessions[other]["bytes_per_session"] > 0:
            times = sessions[TOOLBOX]["bytes_per_session"] / sessions[other]["bytes_per_session"]
            per_session.append(f"toolwright / {other}: {times:.2f}x")
    if per_session:
        out.append("\nMemory per idle session, " + "; ".join(per_session) + ".")

    def ratio(a, b, era, key, c):
        x, y = cell.get((a, era, c)), cell.get((b, era, c))
        if not x or not y or not y[key]:
            return None
        return x[key] / y[key]

    # The goals (issue 38): toolwright at least 0.95x the bare server's req/s and at most 1.1x
    # its p99 (both eras, sessions and stateless), memory per idle session at most the bare
    # server's; and (issue 28) at least 10x the Python SDK's req/s. A ratio that misses its
    # goal is marked.
    goals = {"rps": lambda r: r >= RPS_GOAL, "p99_ms": lambda r: r <= P99_GOAL,
             "python": lambda r: r >= 10, "memory": lambda r: r <= MEMORY_GOAL}

    def shown(r, goal):
        if r is None:
            return "n/a"
        return f"{r:.2f}x" if goals[goal](r) else f"**{r:.2f}x**"

    servers = list(dict.fromkeys(l["server"] for l in load))
    for era, title in ((HANDSHAKE, f"{HANDSHAKE} clients (initialize, a session)"),
                       (MODERN, f"{MODERN} clients (no initialize, no session)")):
        toolboxes = [s for s in servers if s.startswith(TOOLBOX) and any(k[:2] == (s, era) for k in cell)]
        pythons = [p for p in (PYTHON, PYTHON_JSON) if any(k[:2] == (p, era) for k in cell)]
        if not toolboxes:
            continue
        out.append(f"\nRatios, {title}, against servers of the same run and era "
                   f"(goals: req/s at least {RPS_GOAL}x bare rmcp and 10x Python, p99 at most {P99_GOAL}x bare rmcp; "
                   "**bold**: missed):\n")
        out.append("| ratio | c=1 | c=16 | c=64 |")
        out.append("|---|---|---|---|")
        for server in toolboxes:
            rows = [(f"{server} / {BARE}, req/s", BARE, "rps", "rps"),
                    (f"{server} / {BARE}, p99", BARE, "p99_ms", "p99_ms")]
            rows += [(f"{server} / {p}, req/s", p, "rps", "python") for p in pythons]
            for label, other, key, goal in rows:
                cells = [shown(ratio(server, other, era, key, c), goal) for c in CONCURRENCY]
                out.append(f"| {label} | " + " | ".join(cells) + " |")

    if stdio:
        out.append("\nstdio, one server process per row:\n")
        out.append("| server | spawn → `initialize` reply, median (min–max) | calls one at a time: calls/s, p50, p99 "
                   "| 16 calls in flight: calls/s, p50, p99 | server RSS after, MiB |")
        out.append("|---|---|---|---|---|")
        servers = list(dict.fromkeys(l["server"] for l in stdio))
        for server in servers:
            start = next((l for l in stdio if l["server"] == server and "spawns" in l), None)
            calls = {l["in_flight"]: l for l in stdio if l["server"] == server and "in_flight" in l}
            row = [server]
            row.append(
                f"{start['median_ms']:,.1f} ms ({start['min_ms']:,.1f}–{start['max_ms']:,.1f}), {start['spawns']} spawns"
                if start else "")
            for n in (1, 16):
                l = calls.get(n)
                row.append(f"{l['rps']:,.0f}/s, {l['p50_ms']:.2f} ms, {l['p99_ms']:.2f} ms" if l else "")
            rss = [l["server_rss_kib"] for l in calls.values()]
            row.append(mib(max(rss)) if rss else "")
            out.append("| " + " | ".join(row) + " |")

    # The goals in one table: every ratio they name, and how many are missed.
    out.append(f"\nGoals (issue 38), toolwright against bare rmcp + TCP_NODELAY in this run: req/s at least "
               f"{RPS_GOAL}x, p99 at most {P99_GOAL}x, memory per idle session at most {MEMORY_GOAL}x "
               "(**bold**: missed):\n")
    out.append("| ratio | c=1 | c=16 | c=64 |")
    out.append("|---|---|---|---|")
    met = missed = 0
    for era in (HANDSHAKE, MODERN):
        for server in (TOOLBOX, f"{TOOLBOX} --stateless"):
            for key, what in (("rps", "req/s"), ("p99_ms", "p99")):
                rs = [ratio(server, BARE, era, key, c) for c in CONCURRENCY]
                if all(r is None for r in rs):
                    continue
                for r in rs:
                    if r is not None:
                        met, missed = (met + 1, missed) if goals[key](r) else (met, missed + 1)
                out.append(f"| {server}, {era}, {what} | " + " | ".join(shown(r, key) for r in rs) + " |")
    if TOOLBOX in sessions and BARE in sessions and sessions[BARE]["bytes_per_session"] > 0:
        r = sessions[TOOLBOX]["bytes_per_session"] / sessions[BARE]["bytes_per_session"]
        met, missed = (met + 1, missed) if goals["memory"](r) else (met, missed + 1)
        out.append(f"| {TOOLBOX}, memory per idle session | {shown(r, 'memory')} | | |")
    out.append(f"\nGoals met: {met} of {met + missed}" + (f"; missed: {missed}." if missed else "."))

    for l in skipped:
        out.append(f"\nNot measured: {l['server']}: {l['skipped']}.")
    print("\n".join(out))


if __name__ == "__main__":
    main()
