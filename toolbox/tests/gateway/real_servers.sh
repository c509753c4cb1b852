#!/usr/bin/env bash
# Real MCP servers no one here wrote, installed from npm, mounted with `toolwright --config`:
# their tools listed under a namespace, a safe read, a sum, an image that comes back as an
# image, and a dangerous call refused without approval (and run with it).
# Usage: toolbox/tests/gateway/real_servers.sh path/to/toolwright
set -euo pipefail
bin="$1"
work="$(mktemp -d "${TMPDIR:-/tmp}/toolwright-gateway.XXXXXX")"
trap 'rm -rf "$work"' EXIT
fail() { echo "real_servers.sh: $*" >&2; exit 1; }

# Pinned versions: the test must not change when the registry does.
cat > "$work/gateway.toml" <<'TOML'
[[upstream]]
namespace = "everything"
command = "npx"
args = ["-y", "@modelcontextprotocol/server-everything@2026.8.31", "stdio"]
tools = { "echo" = "safe", "get-sum" = "safe" }

[[upstream]]
namespace = "memory"
command = "npx"
args = ["-y", "@modelcontextprotocol/server-memory@2026.8.31"]
tools = { "read_graph" = "safe", "search_*" = "safe" }
TOML
# The memory server keeps its graph where it is told (not in npm's cache).
printf 'env = { MEMORY_FILE_PATH = "%s" }\n' "$work/memory.jsonl" >> "$work/gateway.toml"
run() { "$bin" "$@" --config "$work/gateway.toml" 2>"$work/stderr"; }

run list --json > "$work/tools.json" || fail "list failed: $(cat "$work/stderr")"
python3 - "$work/tools.json" <<'PY'
import json, sys
tools = {t["name"]: t["safety"] for t in json.load(open(sys.argv[1]))}
expect = {"everything_echo": "safe", "everything_get_sum": "safe",
          "everything_get_env": "dangerous", "everything_get_tiny_image": "dangerous",
          "memory_read_graph": "safe", "memory_create_entities": "dangerous",
          "read_file": "safe"}
for name, safety in expect.items():
    assert tools.get(name) == safety, f"{name}: {tools.get(name)!r}, expected {safety!r}"
print(f"listed {len(tools)} tools, {sum(n.startswith(('everything_', 'memory_')) for n in tools)} mounted")
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
grep -q '"toolwright"' "$work/memory.jsonl" || fail "the approved write did not reach the memory server"
echo "real servers through --config: ok"
