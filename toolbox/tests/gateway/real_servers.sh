#!/usr/bin/env bash
# Real MCP servers no one here wrote, installed from npm and PyPI, mounted with
# `toolwright --config`: their tools listed under a namespace, a safe read, a sum, an image
# that comes back as an image, a dangerous call refused without approval (and run with it),
# and the Python time server's answer and its error for an unknown time zone. Then the same
# servers behind `serve --http`: one killed (its tools come back after its backoff), the file
# edited and reloaded with SIGHUP (an upstream removed, the others untouched), and a file
# that does not load refused while the running configuration keeps answering.
# Usage: toolbox/tests/gateway/real_servers.sh path/to/toolwright path/to/mcp-server-time
#   (mcp-server-time: the command `pip install mcp-server-time==2026.10.19` installs; .ci/run
#   puts it in its virtual environment)
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 path/to/toolwright path/to/mcp-server-time" >&2; exit 2; }
bin="$1"
time_server="$2"
work="$(mktemp -d "${TMPDIR:-/tmp}/toolwright-gateway.XXXXXX")"
trap 'rm -rf "$work"' EXIT
fail() { echo "real_servers.sh: $*" >&2; exit 1; }

# Pinned versions: the test must not change when the registry does. Installed once, each
# server runs confined (the CLI's default): it sees the system, its installation (read-only)
# and what its `sandbox` grants, and no network.
npm install --silent --no-audit --no-fund --prefix "$work/npm" \
    @modelcontextprotocol/server-everything@2026.8.31 \
    @modelcontextprotocol/server-memory@2026.8.31 >/dev/null
mkdir -p "$work/memory"
# The Python server runs from its virtual environment (the program's directory's parent)
# on the interpreter the environment was made from (`home` in its pyvenv.cfg).
venv="$(dirname "$(dirname "$time_server")")"
python_home="$(dirname "$(sed -n 's/^home *= *//p' "$venv/pyvenv.cfg")")"
cat > "$work/gateway.toml" <<TOML
[[upstream]]
namespace = "everything"
command = "$work/npm/node_modules/.bin/mcp-server-everything"
args = ["stdio"]
tools = { "echo" = "safe", "get-sum" = "safe" }
sandbox = { read = ["$work/npm"] }

[[upstream]]
namespace = "memory"
command = "$work/npm/node_modules/.bin/mcp-server-memory"
tools = { "read_graph" = "safe", "search_*" = "safe" }
# The memory server keeps its graph where it is told, the one place it may write.
env = { MEMORY_FILE_PATH = "$work/memory/memory.jsonl" }
sandbox = { read = ["$work/npm"], write = ["$work/memory"] }

# A Python server from PyPI (mcp-server-time, on the official Python SDK): its local time
# zone fixed, so nothing depends on the machine's.
[[upstream]]
namespace = "time"
command = "$time_server"
args = ["--local-timezone", "UTC"]
tools = { "get_current_time" = "safe" }
sandbox = { read = ["$venv", "$python_home"] }
TOML
run() { "$bin" "$@" --config "$work/gateway.toml" 2>"$work/stderr"; }

run list --json > "$work/tools.json" || fail "list failed: $(cat "$work/stderr")"
python3 - "$work/tools.json" <<'PY'
import json, sys
tools = {t["name"]: t["safety"] for t in json.load(open(sys.argv[1]))}
expect = {"everything_echo": "safe", "everything_get_sum": "safe",
          "everything_get_env": "dangerous", "everything_get_tiny_image": "dangerous",
          "memory_read_graph": "safe", "memory_create_entities": "dangerous",
          "time_get_current_time": "safe", "time_convert_time": "dangerous",
          "read_file": "safe"}
for name, safety in expect.items():
    assert tools.get(name) == safety, f"{name}: {tools.get(name)!r}, expected {safety!r}"
print(f"listed {len(tools)} tools, {sum(n.startswith(('everything_', 'memory_', 'time_')) for n in tools)} mounted")
PY

out="$(run call everything_echo '{"message": "hello gateway"}')" || fail "echo: $(cat "$work/stderr")"
grep -q "hello gateway" <<<"$out" || fail "echo answered: $out"
out="$(run call everything_get_sum '{"a": 2, "b": 3}')" || fail "get_sum: $(cat "$work/stderr")"
grep -q "5" <<<"$out" || fail "get_sum answered: $out"

# Dangerous by default: refused without a person (no terminal here), run with --yes.
if run call everything_get_env '{}' < /dev/null > "$work/out"; then
    fail "a dangerous upstream tool ran without approval: $(cat "$work/out")"
fi
grep -q "approval denied" "$work/stderr" || fail "get_env refusal said: $(cat "$work/stderr")"
run call everything_get_tiny_image '{}' --yes --json > "$work/image.json" || fail "image: $(cat "$work/stderr")"
python3 - "$work/image.json" <<'PY'
import json, sys
result = json.load(open(sys.argv[1]))
kinds = [b["type"] for b in result.get("blocks", [])]
assert "image" in kinds, f"no image block came back: {kinds}"
image = next(b for b in result["blocks"] if b["type"] == "image")
assert image.get("mimeType", image.get("mime_type")) == "image/png", image.keys()
print("image block passed through:", kinds)
PY
out="$(run call memory_create_entities '{"entities": [{"name": "toolwright", "entityType": "project", "observations": ["mounted"]}]}' --yes)" \
    || fail "create_entities: $(cat "$work/stderr")"
grep -q '"toolwright"' "$work/memory/memory.jsonl" || fail "the approved write did not reach the memory server"

# The time server: a time for UTC, in the shape it documents (no assertion on the value).
run call time_get_current_time '{"timezone": "UTC"}' --json > "$work/time.json" \
    || fail "get_current_time: $(cat "$work/stderr")"
python3 - "$work/time.json" <<'PY'
import json, re, sys
result = json.load(open(sys.argv[1]))
assert result["success"] is True, result
answer = json.loads(result["content"])
assert result.get("structured_content") == answer, result
assert answer["timezone"] == "UTC", answer
assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00", answer["datetime"]), answer
assert answer["is_dst"] is False, answer
print("time_get_current_time answered:", sorted(answer))
PY
# An unknown time zone: the upstream's own error, as a tool error (exit status 1, the tool
# failed; not 2, a usage error), with the upstream's words.
status=0
run call time_get_current_time '{"timezone": "Not/AZone"}' --json > "$work/bad.json" || status=$?
[ "$status" -eq 1 ] || fail "an unknown time zone: exit status $status: $(cat "$work/bad.json" "$work/stderr")"
python3 - "$work/bad.json" <<'PY'
import json, sys
result = json.load(open(sys.argv[1]))
assert result["success"] is False, result
assert "Invalid timezone" in result["error"] and "Not/AZone" in result["error"], result["error"]
print("time_get_current_time of an unknown zone failed with the upstream's error")
PY
echo "real servers through --config: ok"

# Behind a crash and a reload: `serve --http` with the same file.
lifecycle() { python3 "$(dirname "$0")/lifecycle_http.py" "$@"; }
port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
url="http://127.0.0.1:$port"
"$bin" serve --http "127.0.0.1:$port" --config "$work/gateway.toml" 2>"$work/serve.stderr" &
serve_pid=$!
trap 'kill "$serve_pid" 2>/dev/null; wait "$serve_pid" 2>/dev/null; rm -rf "$work"' EXIT
for upstream in everything memory time; do
    lifecycle ready "$url" "upstream $upstream: up" || fail "$upstream not up: $(cat "$work/serve.stderr")"
done
out="$(lifecycle call "$url" everything_echo '{"message": "before the crash"}')" || fail "echo: $out"
grep -q "before the crash" <<<"$out" || fail "echo answered: $out"

# The everything server killed: noticed when its stdout closes, withdrawn, started again.
pids="$(pgrep -f -- "$work/npm/node_modules/.bin/mcp-server-everything" || true)"
[ -n "$pids" ] || fail "no process of the everything server"
# shellcheck disable=SC2086
kill -KILL $pids
lifecycle ready "$url" "upstream everything: up" "1 restarts" \
    || fail "everything not back: $(cat "$work/serve.stderr")"
out="$(lifecycle call "$url" everything_echo '{"message": "after the crash"}')" || fail "echo after the crash: $out"
grep -q "after the crash" <<<"$out" || fail "echo after the crash answered: $out"

# Reloaded with memory removed: it stops, the others go on (time was never restarted).
python3 - "$work/gateway.toml" <<'PY'
import re, sys
path = sys.argv[1]
text = open(path).read()
text = re.sub(r'\[\[upstream\]\]\nnamespace = "memory".*?(?=\n# A Python server)', "", text, flags=re.S)
open(path, "w").write(text)
PY
grep -q 'namespace = "memory"' "$work/gateway.toml" && fail "the edit left memory in the file"
kill -HUP "$serve_pid"
lifecycle absent "$url" "upstream memory" || fail "memory still there: $(cat "$work/serve.stderr")"
grep -q "SIGHUP: reloaded .*stopped: memory" "$work/serve.stderr" || fail "reload said: $(cat "$work/serve.stderr")"
lifecycle ready "$url" "upstream time: up" "0 restarts" || fail "time was restarted"
lifecycle call "$url" time_get_current_time '{"timezone": "UTC"}' >/dev/null || fail "time after the reload"
if lifecycle call "$url" memory_read_graph '{}' >/dev/null; then fail "a removed upstream's tool answered"; fi

# A file that does not load: refused, the running configuration kept.
cp "$work/gateway.toml" "$work/gateway.good"
echo '[[upstream]] namespace = ' >> "$work/gateway.toml"
kill -HUP "$serve_pid"
for _ in $(seq 1 1200); do
    grep -q "SIGHUP: refused the new configuration" "$work/serve.stderr" && break
    sleep 0.1
done
grep -q "SIGHUP: refused the new configuration" "$work/serve.stderr" || fail "a bad file was not refused"
out="$(lifecycle call "$url" everything_echo '{"message": "still here"}')" || fail "echo after a bad reload: $out"
grep -q "still here" <<<"$out" || fail "echo after a bad reload answered: $out"
echo "real servers behind a crash and a reload: ok"
