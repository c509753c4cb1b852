#!/usr/bin/env bash
# The gateway's cost (BENCHMARKS.md, "Gateway"): `tools/call` of a trivial upstream tool
# through `toolwright serve --config` against the same call made directly to the upstream,
# over stdio and streamable HTTP, from 1 and 16 clients, in one run
# (tool-mcp/examples/gateway_bench.rs). Not run in CI with its numbers; .ci/run runs it
# once with a handful of calls as a smoke test (no time is judged).
#
# Usage: bash benches/gateway.sh [CALLS] [ROUNDS]
#   CALLS   calls per client per round (default 2000), after 50 warm-up calls
#   ROUNDS  rounds per cell, direct and gateway alternating (default 3)
# Environment: PROFILE (release by default; `debug` for the smoke test), CLIENTS (default
# 1,16), TRANSPORTS (default stdio,http), WARMUP (default 50), TOOLWRIGHT (the gateway's
# binary; the one built here by default).
# Prints a JSON row per cell, a markdown table, then a summary of the goals' ratios
# (benches/gateway_summary.py).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
cd "$here"
calls="${1:-2000}"
rounds="${2:-3}"
profile="${PROFILE:-release}"
fail() { echo "gateway.sh: $*" >&2; exit 1; }
[[ "$calls" =~ ^[0-9]+$ && "$rounds" =~ ^[0-9]+$ ]] || fail "CALLS and ROUNDS are whole numbers"
case "$profile" in
    release) flags=(--release) ;;
    debug) flags=() ;;
    *) fail "PROFILE is release or debug, not $profile" ;;
esac

echo "gateway.sh: building ($profile)" >&2
cargo build --quiet "${flags[@]}" -p toolwright-cli
cargo build --quiet "${flags[@]}" -p toolwright-mcp --features http --example gateway_bench
target_dir="$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')"

# Copies of the binaries just built: a build from another checkout sharing the target
# directory cannot replace them during the run.
bin="$(mktemp -d)"
trap 'rm -rf "$bin"' EXIT
cp "$target_dir/$profile/toolwright" "$target_dir/$profile/examples/gateway_bench" "$bin/"
echo "gateway.sh: load average before: $(cut -d' ' -f1-3 /proc/loadavg), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')" >&2
# TOOLWRIGHT: another `toolwright` to put in front of the upstream (an older build, to
# compare two gateways on the same machine state); the one just built by default.
"$bin/gateway_bench" run --toolwright "${TOOLWRIGHT:-$bin/toolwright}" --calls "$calls" \
    --rounds "$rounds" --warmup "${WARMUP:-50}" --clients "${CLIENTS:-1,16}" \
    --transports "${TRANSPORTS:-stdio,http}" | tee "$bin/rows"
# One summary of the ratios the goals name (benches/gateway_summary.py), misses marked.
python3 benches/gateway_summary.py "$bin/rows"
echo "gateway.sh: load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
