#!/usr/bin/env python3
"""Splits a `perf script` of the gateway process (`toolwright serve --config`) into whose
work each sample is (BENCHMARKS.md, "Gateway", where the time goes): the upstream client
(rmcp's client transport, reqwest, hyper's client), rmcp's client service, the gateway's own
code (toolwright_gateway: session, forward, content), the executor (toolwright_runtime), the
MCP server layer (toolwright_mcp, rmcp's server, hyper's server; tokio's blocking-pool
threads, which only the server's stdin and stdout use here), rmcp's line framing over stdio, and the rest
(the tokio runtime's scheduling and the kernel outside any of those). A sample counts for the first
category, in that order, that names a frame of its stack.

Usage: perf script -i perf.data | python3 benches/perf_split.py
"""

import sys

# A thread of tokio's blocking pool that is not a runtime worker (the workers start from
# the same pool): in the gateway, only stdin and stdout are read and written there.
BLOCKING_THREAD = "<a blocking-pool thread>"

CATEGORIES = [
    ("upstream client (rmcp client transport, reqwest, hyper client, child stdio)",
     ("reqwest::", "hyper_util::client", "hyper::client", "streamable_http_client",
      "child_process", "TokioChildProcess")),
    ("rmcp client service (RoleClient)", ("RoleClient",)),
    ("gateway's own (toolwright_gateway)", ("toolwright_gateway",)),
    ("executor (toolwright_runtime)", ("toolwright_runtime",)),
    ("MCP server layer (toolwright_mcp, rmcp server, hyper server; over stdio its\n"
     "        stdin and stdout, which tokio reads and writes on its blocking pool)",
     ("toolwright_mcp", "streamable_http_server", "hyper::server", "RoleServer", "axum::",
      "tokio::io::blocking", "std::io::stdio", BLOCKING_THREAD)),
    ("rmcp's line framing over stdio (either side: both are AsyncRwTransport)",
     ("async_rw",)),
]


def samples(lines):
    stack = []
    for line in lines:
        if not line.strip():
            if stack:
                yield stack
            stack = []
        elif line.startswith((" ", "\t")):
            stack.append(line.strip())
    if stack:
        yield stack


def main():
    counts = {name: 0 for name, _ in CATEGORIES}
    rest = 0
    total = 0
    for stack in samples(sys.stdin):
        total += 1
        text = "\n".join(stack)
        if "blocking::pool::Inner::run" in text and "multi_thread::worker" not in text:
            text += "\n" + BLOCKING_THREAD
        for name, needles in CATEGORIES:
            if any(needle in text for needle in needles):
                counts[name] += 1
                break
        else:
            rest += 1
    if not total:
        print("no samples")
        return
    for name, _ in CATEGORIES:
        print(f"{100 * counts[name] / total:5.1f}%  {name}")
    print(f"{100 * rest / total:5.1f}%  the rest (runtime scheduling, idle, kernel elsewhere)")
    print(f"{total} samples")


if __name__ == "__main__":
    main()
