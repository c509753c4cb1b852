#!/usr/bin/env bash
# The official MCP conformance suite (tool-mcp/tests/conformance/run.sh) against `toolwright
# serve --http --config` in front of a server no one here wrote: npm's
# @modelcontextprotocol/server-everything (pinned), mounted over stdio. The scenarios are
# those that make sense for a gateway in front of that server (book/src/gateway.md,
# "Conformance through the gateway", says which and why the others cannot apply); each
# must pass, so a regression fails.
#
# Usage: toolbox/tests/gateway/conformance.sh path/to/toolwright
#        toolbox/tests/gateway/conformance.sh --compare path/to/toolwright
#   --compare   no verdict: every server scenario of the suite's 0.1 line, and the 0.2 line's
#               scenarios below with server-stateless and caching, against server-everything's
#               own streamable HTTP mode (`server-everything streamableHttp`) and through the
#               gateway; prints both tables (the book's table comes from this).
# Environment: CONFORMANCE_DIR_01, CONFORMANCE_DIR_02: where run.sh installs the two lines of
# the suite (default: its own choice, under the cargo target directory).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
run_sh="$here/../../../tool-mcp/tests/conformance/run.sh"
compare=0
if [ "${1:-}" = --compare ]; then compare=1; shift; fi
[ $# -eq 1 ] || { echo "usage: $0 [--compare] path/to/toolwright" >&2; exit 2; }
bin="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
everything="@modelcontextprotocol/server-everything@2026.8.31"

# Expected to pass through the gateway; why the others cannot: book/src/gateway.md.
# 0.1.16 (2025-06-18 / 2025-11-25: initialize, sessions).
# resources-list, prompts-list, completion-complete: server-everything's resources, templates
# and prompts mounted beside its tools (`everything+demo://...`, `everything_*`).
# resources-subscribe, -unsubscribe: the suite's own URI is accepted (a well-formed URI that
# names nothing yet), as server-everything accepts any.
pass_01=server-initialize,ping,tools-list,logging-set-level,server-sse-polling,server-sse-multiple-streams,dns-rebinding-protection,resources-list,prompts-list,completion-complete,resources-subscribe,resources-unsubscribe
# 0.2 (requirements 2026-07-28: no initialize, no session; the gateway speaks it to the
# client while server-everything, behind it, speaks 2025-11-25).
pass_02=tools-list,server-sse-multiple-streams,sep-2164-resource-not-found,dns-rebinding-protection,input-required-result-unsupported-methods,http-header-validation,caching

work="$(mktemp -d "${TMPDIR:-/tmp}/toolwright-gateway-conformance.XXXXXX")"
direct_pid=""
cleanup() {
    if [ -n "$direct_pid" ]; then
        kill -- "-$direct_pid" 2>/dev/null || kill "$direct_pid" 2>/dev/null || true
        wait "$direct_pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT
mkdir "$work/root"
# Installed once; it runs confined (toolwright's default), seeing its installation.
npm install --silent --no-audit --no-fund --prefix "$work/npm" "$everything" >/dev/null
cat > "$work/gateway.toml" <<TOML
[[upstream]]
namespace = "everything"
command = "$work/npm/node_modules/.bin/mcp-server-everything"
args = ["stdio"]
tools = { "echo" = "safe", "get-sum" = "safe" }
sandbox = { read = ["$work/npm"] }
TOML
gateway=("$bin" serve --http 127.0.0.1:0 --root "$work/root" --config "$work/gateway.toml")
with_dir() { # with_dir 01|02 run.sh args...
    local var="CONFORMANCE_DIR_$1"
    shift
    if [ -n "${!var:-}" ]; then CONFORMANCE_DIR="${!var}" "$run_sh" "$@"; else "$run_sh" "$@"; fi
}

if [ "$compare" = 0 ]; then
    echo "== conformance 0.1.16 through the gateway (server-everything behind it)"
    with_dir 01 --scenarios "$pass_01" -- "${gateway[@]}"
    echo "== conformance 0.2, requirements 2026-07-28, through the gateway"
    with_dir 02 --suite 0.2 --requirements 2026-07-28 --scenarios "$pass_02" -- "${gateway[@]}"
    exit 0
fi

# --compare: the tables, direct and through the gateway; a failed scenario is a row, not an
# error.
port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
(cd "$work" && PORT="$port" exec setsid npx -y "$everything" streamableHttp) > "$work/direct.log" 2>&1 &
direct_pid=$!
direct="http://127.0.0.1:$port/mcp"
give_up=$((SECONDS + 120))
until grep -q "listening on port $port" "$work/direct.log"; do
    kill -0 "$direct_pid" 2>/dev/null || { cat "$work/direct.log" >&2; exit 1; }
    [ "$SECONDS" -lt "$give_up" ] || { echo "server-everything did not start" >&2; exit 1; }
    sleep 0.1
done
table() { sed -n '/^SCENARIO/,/^$/p' "$1"; }
with_dir 01 "$direct" > "$work/direct-01.txt" 2>&1 || true
with_dir 01 -- "${gateway[@]}" > "$work/gateway-01.txt" 2>&1 || true
more_02="$pass_02,server-stateless"
with_dir 02 --suite 0.2 --requirements 2026-07-28 --scenarios "$more_02" "$direct" > "$work/direct-02.txt" 2>&1 || true
with_dir 02 --suite 0.2 --requirements 2026-07-28 --scenarios "$more_02" -- "${gateway[@]}" > "$work/gateway-02.txt" 2>&1 || true
for line in 01 02; do
    echo "== suite $line: direct (server-everything streamableHttp)"
    table "$work/direct-$line.txt"
    sed -n '/^  /p' "$work/direct-$line.txt"
    echo "== suite $line: through the gateway"
    table "$work/gateway-$line.txt"
    sed -n '/^  /p' "$work/gateway-$line.txt"
done
