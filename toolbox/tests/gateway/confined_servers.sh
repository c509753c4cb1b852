#!/usr/bin/env bash
# A real MCP server no one here wrote (npm @modelcontextprotocol/server-filesystem), confined
# by `toolwright --config` to one directory: given a second directory that is a link to
# another place, and a link inside its own directory, it reads the secret there when it
# runs unconfined (its own checks allow both paths) and cannot when it runs confined, where
# the kernel's view has nothing behind the links. Writes land only in its directory.
# Usage: toolbox/tests/gateway/confined_servers.sh path/to/toolwright
set -euo pipefail
bin="$1"
work="$(mktemp -d "${TMPDIR:-/tmp}/toolwright-confined.XXXXXX")"
trap 'rm -rf "$work"' EXIT
fail() { echo "confined_servers.sh: $*" >&2; exit 1; }

# Installed once, pinned; the server runs from here, read-only to it.
npm install --silent --no-audit --no-fund --prefix "$work/npm" \
    @modelcontextprotocol/server-filesystem@2026.8.31 >/dev/null
server="$work/npm/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"
[ -f "$server" ] || fail "the server was not installed at $server"

mkdir -p "$work/shared" "$work/outside"
echo "shared note" > "$work/shared/note.txt"
secret="outside-secret-$$"
echo "$secret" > "$work/outside/secret.txt"
ln -s "$work/outside" "$work/alias"                       # a second allowed directory
ln -s "$work/outside/secret.txt" "$work/shared/link.txt"  # a link inside its own

config() {
    cat > "$work/gateway.toml" <<TOML
[[upstream]]
namespace = "files"
command = "node"
args = ["$server", "$work/shared", "$work/alias"]
tools = { "read_*" = "safe", "list_*" = "safe", "write_file" = "dangerous" }
$1
TOML
}
call() { "$bin" call "$@" --config "$work/gateway.toml" --audit-log "$work/audit.jsonl" 2>"$work/stderr"; }

# Unconfined, the server's own checks let both paths through to the secret.
config "unconfined = true"
out="$(call files_read_text_file "{\"path\": \"$work/alias/secret.txt\"}")" || fail "unconfined alias: $(cat "$work/stderr")"
grep -q "$secret" <<<"$out" || fail "unconfined, the alias did not lead to the secret: $out"
out="$(call files_read_text_file "{\"path\": \"$work/shared/link.txt\"}")" || fail "unconfined link: $(cat "$work/stderr")"
grep -q "$secret" <<<"$out" || fail "unconfined, the link did not lead to the secret: $out"

# Confined to its installation (read) and its directory (write), the same calls fail.
config "sandbox = { read = [\"$work/npm\"], write = [\"$work/shared\"] }"
out="$(call files_read_text_file "{\"path\": \"$work/shared/note.txt\"}")" || fail "confined note: $(cat "$work/stderr")"
grep -q "shared note" <<<"$out" || fail "confined, its own file: $out"
for path in "$work/alias/secret.txt" "$work/shared/link.txt" "$work/outside/secret.txt" /etc/shadow; do
    if out="$(call files_read_text_file "{\"path\": \"$path\"}")"; then
        fail "confined, $path was read: $out"
    fi
    if grep -q -e "$secret" -e "root:" <<<"$out$(cat "$work/stderr")"; then
        fail "confined, $path leaked: $out $(cat "$work/stderr")"
    fi
done
out="$(call files_write_file "{\"path\": \"$work/shared/new.txt\", \"content\": \"new\"}" --yes)" || fail "confined write: $(cat "$work/stderr")"
[ "$(cat "$work/shared/new.txt")" = "new" ] || fail "the write did not land in its directory"
if call files_write_file "{\"path\": \"$work/alias/planted.txt\", \"content\": \"x\"}" --yes >/dev/null; then
    fail "confined, a write through the alias succeeded"
fi
[ ! -e "$work/outside/planted.txt" ] || fail "confined, a file was planted outside"
[ "$(ls "$work/outside")" = "secret.txt" ] || fail "confined, the outside directory changed: $(ls "$work/outside")"
# Every confined call of the write tool (dangerous) is in the audit log with its outcome.
python3 - "$work/audit.jsonl" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
writes = [l for l in lines if l["tool"] == "files_write_file"]
assert [w["outcome"] for w in writes] == ["success", "failure"], writes
print(f"confined server-filesystem: {len(lines)} audited calls, the alias and the link refused by the kernel")
PY

# The book's example configuration (book/src/gateway.md, its first TOML block), with its
# directories here: the server it names is listed and called as the book says.
python3 - "$(dirname "$0")/../../../book/src/gateway.md" "$work" > "$work/book.toml" <<'PY'
import sys
text = open(sys.argv[1]).read()
block = text.split("```toml\n", 1)[1].split("```", 1)[0]
work = sys.argv[2]
for host, here in [("/opt/mcp", f"{work}/npm"), ("/srv/shared", f"{work}/shared"),
                   ("/var/log/toolwright", work)]:
    block = block.replace(host, here)
print(block)
PY
"$bin" list --config "$work/book.toml" 2>"$work/stderr" | grep -q "^files_read_text_file *safe" \
    || fail "the book's configuration: $(cat "$work/stderr")"
out="$("$bin" call files_list_directory "{\"path\": \"$work/shared\"}" --config "$work/book.toml" 2>"$work/stderr")" \
    || fail "the book's configuration, list_directory: $(cat "$work/stderr")"
grep -q "note.txt" <<<"$out" || fail "the book's configuration listed: $out"
echo "the book's example configuration: listed and called"
