#!/usr/bin/env bash
# Serving benchmark: `toolwright serve` against a bare rmcp server and the official Python MCP
# SDK's server, all on this machine in one run. CI runs it only as a smoke test (debug build,
# a fraction of a second per cell; its numbers depend on the machine). Usage:
#   bash benches/serve_http.sh [SECONDS]        (default: 3 seconds per cell; about 4 to 6
#                                                minutes in all on a busy 2-core machine)
# Environment: SESSIONS (idle sessions opened per server, default 250: toolwright takes
# 256 sessions per client address), SPAWNS (stdio
# start-ups timed, default 20; PY_SPAWNS for the Python server, default 10),
# PROFILE (release, or debug for a smoke test), ROUNDS (default 3), TOOLWRIGHT_BIN
# (a `toolwright` binary to measure instead of the release build of this checkout: an
# earlier build, for a before/after in the same kind of run), GOALS_ONLY=1 (only what the
# goals name: toolwright, `--stateless` and bare rmcp + TCP_NODELAY, both eras, and memory
# per idle session; no Python, no stdio, no bare rmcp without TCP_NODELAY), BUILD=0 (use
# the release binaries already in the target directory).
#
# The cells the goals compare (toolwright, toolwright --stateless and bare rmcp +
# TCP_NODELAY, at 1, 16 and 64 clients, both eras) run interleaved: the three servers are
# up together, and for each era and client count their cells run back to back, so a change
# in the machine's load touches all three alike; and in ROUNDS rounds (default 3), the
# summary taking each cell's median over the rounds (a build elsewhere that takes the
# cores for a few seconds spoils one round's cells, not the median).
#
# Measures, printing one JSON line each (`"server"` names the server):
# - streamable HTTP: `tools/call calculate {"expression": "1+2"}` from 1, 16 and 64
#   keep-alive clients for SECONDS each (`benches/src/bin/mcp_http_load.rs`): requests per
#   second, p50 and p99 latency, calls that failed, and the server's resident memory (VmRSS)
#   after the cell. All clients share one MCP session, except in the "session per worker"
#   rows. Servers: `toolwright serve --http` (release), the bare rmcp server
#   (`benches/src/bin/bare_rmcp_http.rs`) with and without TCP_NODELAY, and `MCPServer` of
#   the Python SDK, mcp==2.3.0 (`benches/python_server.py`, in a virtual environment under
#   the target directory), answering with event streams (its default) and with JSON.
# - the same from clients of MCP 2026-07-28 (`--protocol 2026-07-28`: no `initialize`, no
#   session; each request carries `_meta` with the protocol version, the client's info and
#   capabilities, and the headers MCP-Protocol-Version, Mcp-Method and Mcp-Name):
#   `toolwright serve --http` (the sessions-mode server), with `--stateless`, the bare rmcp
#   server (with TCP_NODELAY) and the Python SDK (which answers such requests with JSON).
#   Each line says its `"protocol"`; the summary compares each era with the bare server
#   of the same era.
# - memory: the server's VmRSS just after it started, and per idle session: on a fresh
#   server, SESSIONS sessions opened (`initialize` and `notifications/initialized` each),
#   (VmRSS after - VmRSS before) / SESSIONS; also `toolwright serve --http --stateless` if
#   this toolwright has that flag.
# - stdio (`benches/src/bin/mcp_stdio_load.rs`): median time from spawning the server to
#   its `initialize` reply, and `tools/call` calls per second over one session, one at a
#   time and with 16 in flight; toolwright and the Python SDK.
# Then prints a summary in markdown (`benches/serve_summary.py`), with the ratios. The
# load client runs on the same cores as the server: compare ratios, not absolute numbers.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
seconds="${1:-3}"
sessions="${SESSIONS:-250}"
spawns="${SPAWNS:-20}"
rounds="${ROUNDS:-3}"
py_spawns="${PY_SPAWNS:-10}"
start_timeout=60 # seconds a server gets to say where it listens
cd "$here"

fail() { echo "serve_http.sh: $*" >&2; exit 1; }
note() { echo "serve_http.sh: $*" >&2; }
[[ "$seconds" =~ ^[0-9]+([.][0-9]+)?$ ]] || fail "SECONDS must be a number, not '$seconds'"
for n in "$sessions" "$spawns" "$py_spawns" "$rounds"; do
    [[ "$n" =~ ^[0-9]+$ ]] || fail "SESSIONS, SPAWNS, PY_SPAWNS and ROUNDS must be whole numbers, not '$n'"
done
[ "$spawns" -gt 0 ] && [ "$py_spawns" -gt 0 ] && [ "$rounds" -gt 0 ] || fail "SPAWNS, PY_SPAWNS and ROUNDS must be at least 1"
[ -r /proc/self/status ] || fail "needs /proc (Linux) to read the servers' memory"

# PROFILE=debug: the debug build, as CI's smoke test runs it (numbers mean nothing there).
profile="${PROFILE:-release}"
[[ "$profile" =~ ^(release|debug)$ ]] || fail "PROFILE is release or debug, not '$profile'"
profile_flag=()
[ "$profile" = release ] && profile_flag=(--release)
if [ "${BUILD:-1}" = 0 ]; then
    note "BUILD=0: using the $profile binaries already built"
else
    note "building ($profile)"
    cargo build --quiet "${profile_flag[@]}" -p toolwright-cli -p benches \
        --bin toolwright --bin bare_rmcp_http --bin mcp_http_load --bin mcp_stdio_load
fi
target_dir="$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')"

venv="$target_dir/serve-bench-venv"
python_ok=""
setup_python() {
    [ -x "$venv/bin/python" ] || python3 -m venv "$venv" || return 1
    "$venv/bin/pip" install --quiet --disable-pip-version-check "mcp==2.3.0" uvicorn || return 1
}
if [ -n "${GOALS_ONLY:-}" ]; then
    note "GOALS_ONLY: no Python SDK rows"
elif setup_python >&2; then python_ok=1; else note "cannot install mcp==2.3.0 into $venv: the Python rows are skipped"; fi

workdir="$(mktemp -d)"
results="$workdir/results.jsonl"
: > "$results"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$workdir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Copies of the binaries just built: a build from another checkout sharing the target
# directory cannot replace them during the run.
bin="$workdir/bin"
mkdir "$bin"
for name in toolwright bare_rmcp_http mcp_http_load mcp_stdio_load; do
    cp "$target_dir/$profile/$name" "$bin/"
done
if [ -n "${TOOLWRIGHT_BIN:-}" ]; then
    [ -x "$TOOLWRIGHT_BIN" ] || fail "TOOLWRIGHT_BIN=$TOOLWRIGHT_BIN is not an executable"
    cp "$TOOLWRIGHT_BIN" "$bin/toolwright"
    note "measuring toolwright from $TOOLWRIGHT_BIN"
fi
goals_only="${GOALS_ONLY:-}"

emit() { echo "$1"; echo "$1" >> "$results"; }
skip() { emit "{\"server\": \"$1\", \"skipped\": \"$2\"}"; note "$1: skipped: $2"; }
rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }

# Copies a server's output to its log; writes the URL it says it listens on (or EXITED,
# if it ends without saying) to the fifo the caller waits on.
watch_ready() { # LOG FIFO
    local log="$1" fifo="$2" found="" line
    local re='listening on (http://)?([0-9.]+:[0-9]+)'
    while IFS= read -r line; do
        printf '%s\n' "$line" >> "$log"
        if [ -z "$found" ] && [[ "$line" =~ $re ]]; then
            found=1
            echo "http://${BASH_REMATCH[2]}/mcp" 1<>"$fifo"
        fi
    done
    [ -n "$found" ] || echo EXITED 1<>"$fifo"
}

# Starts a server (COMMAND listening on 127.0.0.1:0, a port the OS picks) and waits until it
# says where it listens. Sets server_pid, server_url and server_log.
start_server() { # NAME COMMAND...
    local name="$1"; shift
    server_log="$workdir/$name.log"
    : > "$server_log"
    local fifo="$workdir/$name.ready" fd
    rm -f "$fifo"; mkfifo "$fifo"
    exec {fd}<>"$fifo"
    "$@" > >(watch_ready "$server_log" "$fifo") 2>&1 &
    server_pid=$!
    pids+=("$server_pid")
    if ! read -r -t "$start_timeout" -u "$fd" server_url; then
        server_url=TIMEOUT
    fi
    exec {fd}<&-
    rm -f "$fifo"
    case "$server_url" in
        EXITED) tail -20 "$server_log" >&2; fail "$name exited before listening (log above)";;
        TIMEOUT) tail -20 "$server_log" >&2; fail "$name did not say where it listens within ${start_timeout}s";;
    esac
    # The memory read must be the server's, not a shell's around it.
    [ "$(readlink "/proc/$server_pid/exe")" != "$(readlink /proc/$$/exe)" ] \
        || fail "$name: process $server_pid is a shell, not the server"
}

stop_server() {
    kill "$server_pid" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.05; done
    kill -KILL "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
    local kept=() pid
    for pid in "${pids[@]}"; do [ "$pid" = "$server_pid" ] || kept+=("$pid"); done
    pids=("${kept[@]}")
}

# Runs a client; emits its JSON line, or shows the server's log and stops.
client() { # CLIENT ARGS...
    local out
    if ! out="$("$@")"; then
        [ -n "${server_log:-}" ] && { echo "--- end of the server's log:" >&2; tail -20 "$server_log" >&2; }
        fail "failed: $*"
    fi
    emit "$out"
}

# The load cells of one server (fresh), at 1, 16 and 64 clients.
measure_http() { # LABEL COMMAND... (environment: LOAD_ARGS)
    local label="$1"; shift
    local name="${label//[^a-zA-Z0-9]/_}"
    start_server "$name" "$@"
    for c in 1 16 64; do
        # shellcheck disable=SC2086 # LOAD_ARGS: words
        client "$bin/mcp_http_load" "$server_url" "$c" "$seconds" --pid "$server_pid" --label "$label" ${LOAD_ARGS:-}
    done
    stop_server
}

# Memory of one server: its VmRSS just after start, and per idle session.
measure_memory() { # LABEL COMMAND...
    local label="$1"; shift
    local name="${label//[^a-zA-Z0-9]/_}"
    start_server "$name" "$@"
    emit "{\"server\": \"$label\", \"idle_rss_kib\": $(rss_kib "$server_pid")}"
    if [ "$sessions" -gt 0 ]; then
        client "$bin/mcp_http_load" "$server_url" --idle-sessions "$sessions" --pid "$server_pid" --label "$label"
    fi
    stop_server
}

addr=127.0.0.1:0
toolbox_http=("$bin/toolwright" serve --root "$workdir" --http "$addr")
# The load client comes from one address without authentication, and with 64 workers it can
# hold more connections than that address's share (128 by default: one more closes an idle
# one of its own, which a worker may be about to reuse). The bare server has no such share;
# the cells measure throughput, so the share is raised here.
if "$bin/toolwright" serve --help | grep -q -- '--max-connections-per-address'; then
    toolbox_http+=(--max-connections-per-address 1024)
fi
python_server=("$venv/bin/python" benches/python_server.py)
has_stateless=""
"$bin/toolwright" serve --help | grep -q -- '--stateless' && has_stateless=1

note "memory per idle session"
measure_memory "toolwright" "${toolbox_http[@]}"
if [ -n "$has_stateless" ]; then
    measure_memory "toolwright --stateless" "${toolbox_http[@]}" --stateless
else
    skip "toolwright --stateless" "this toolwright serve has no --stateless flag"
fi
measure_memory "bare rmcp + TCP_NODELAY" "$bin/bare_rmcp_http" "$addr" --nodelay

# The goals' cells, interleaved: the servers up together, each era and client count run on
# each back to back.
note "HTTP, the goals' cells (interleaved): $seconds s per cell"
goal_labels=("toolwright")
start_server toolwright "${toolbox_http[@]}"
goal_urls=("$server_url"); goal_pids=("$server_pid")
if [ -n "$has_stateless" ]; then
    start_server toolwright_stateless "${toolbox_http[@]}" --stateless
    goal_labels+=("toolwright --stateless"); goal_urls+=("$server_url"); goal_pids+=("$server_pid")
fi
start_server bare "$bin/bare_rmcp_http" "$addr" --nodelay
goal_labels+=("bare rmcp + TCP_NODELAY"); goal_urls+=("$server_url"); goal_pids+=("$server_pid")
server_log=""
for round in $(seq 1 "$rounds"); do
    note "round $round of $rounds"
    for era in 2025-06-18 2026-07-28; do
        era_args=()
        [ "$era" = 2026-07-28 ] && era_args=(--protocol 2026-07-28)
        for c in 1 16 64; do
            for i in "${!goal_labels[@]}"; do
                client "$bin/mcp_http_load" "${goal_urls[$i]}" "$c" "$seconds" --pid "${goal_pids[$i]}" \
                    --label "${goal_labels[$i]}" "${era_args[@]}"
            done
        done
    done
done
for pid in "${goal_pids[@]}"; do server_pid="$pid"; stop_server; done

if [ -z "$goals_only" ]; then
    note "HTTP, other servers: $seconds s per cell"
    LOAD_ARGS=--session-per-worker measure_http "toolwright, session per worker" "${toolbox_http[@]}"
    measure_http "bare rmcp" "$bin/bare_rmcp_http" "$addr"
    if [ -n "$python_ok" ]; then
        measure_memory "Python SDK" "${python_server[@]}" http "$addr"
        measure_http "Python SDK" "${python_server[@]}" http "$addr"
        measure_http "Python SDK, JSON responses" "${python_server[@]}" http "$addr" --json-response
        LOAD_ARGS="--protocol 2026-07-28" measure_http "Python SDK" "${python_server[@]}" http "$addr"
    else
        skip "Python SDK" "mcp==2.3.0 could not be installed"
    fi
fi

if [ -n "$goals_only" ]; then
    echo
    python3 benches/serve_summary.py "$results" "$seconds" "$(nproc)"
    exit 0
fi

note "stdio"
server_log=""
toolbox_stdio=("$bin/toolwright" serve --root "$workdir")
client "$bin/mcp_stdio_load" startup "$spawns" --label toolwright -- "${toolbox_stdio[@]}"
client "$bin/mcp_stdio_load" calls "$seconds" 1 --label toolwright -- "${toolbox_stdio[@]}"
client "$bin/mcp_stdio_load" calls "$seconds" 16 --label toolwright -- "${toolbox_stdio[@]}"
if [ -n "$python_ok" ]; then
    client "$bin/mcp_stdio_load" startup "$py_spawns" --label "Python SDK" -- "${python_server[@]}" stdio
    client "$bin/mcp_stdio_load" calls "$seconds" 1 --label "Python SDK" -- "${python_server[@]}" stdio
    client "$bin/mcp_stdio_load" calls "$seconds" 16 --label "Python SDK" -- "${python_server[@]}" stdio
fi

echo
python3 benches/serve_summary.py "$results" "$seconds" "$(nproc)"
