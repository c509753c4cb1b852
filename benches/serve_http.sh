#!/usr/bin/env bash
# Serving benchmark: `toolbox serve --http` against a bare rmcp server (with and without
# TCP_NODELAY), driven by a keep-alive MCP client at 1, 16 and 64 concurrent requests.
# Not run in CI (its numbers depend on the machine). Usage:
#   bash benches/serve_http.sh [SECONDS]            (default: 5 seconds per cell)
# Prints one JSON line per (server, concurrency): requests per second, p50 and p99 latency,
# and calls that failed or got no answer within 10 s. Each worker keeps one connection open;
# all workers share one MCP session, except in the "session per worker" rows.
# All servers are measured in the same run, so compare ratios, not absolute numbers.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
seconds="${1:-5}"
cd "$here"
cargo build --quiet --release -p toolbox -p benches --bin toolbox --bin bare_rmcp_http --bin mcp_http_load
target="$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')/release"
workdir="$(mktemp -d)"
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; rm -rf "$workdir"; }
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 1 200); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.05; done; echo "port $1 never opened" >&2; exit 1; }

run() { # label command...
    local label="$1"; shift
    local port; port="$(free_port)"
    "$@" "127.0.0.1:$port" > "$workdir/$label.log" 2>&1 &
    local pid=$!
    pids+=("$pid")
    wait_port "$port"
    for c in 1 16 64; do
        printf '%-28s ' "$label"
        "$target/mcp_http_load" "http://127.0.0.1:$port/mcp" "$c" "$seconds" ${LOAD_ARGS:-}
    done
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
}

toolbox_http() { "$target/toolbox" serve --root "$workdir" --http "$1"; }
run "toolbox serve --http" toolbox_http
LOAD_ARGS=--session-per-worker run "toolbox, session per worker" toolbox_http
run "bare rmcp (axum::serve)" "$target/bare_rmcp_http"
bare_nodelay() { "$target/bare_rmcp_http" "$1" --nodelay; }
run "bare rmcp + TCP_NODELAY" bare_nodelay
