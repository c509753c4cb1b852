#!/usr/bin/env bash
# Two `toolwright serve --http` replicas sharing MCP sessions through Redis, behind nginx in
# round robin, driven by the official Python MCP SDK (client.py). See README.md here.
#
# Usage: run.sh PATH/TO/toolwright
#
# Environment:
#   PYTHON                  an interpreter with `mcp==2.3.0` installed (default: python3)
#   REPLICAS_DEADLINE_SECS  how long any one wait may take before the run fails (default 120)
#   REPLICAS_SESSION_STORE  `redis` (default), or `none` to run the replicas without the store:
#                           the session then breaks when nginx moves it, and this script must
#                           fail (a check that the test can fail)
#   REPLICAS_KEEP_TMP=1     keep the temporary directory (logs, configuration) afterwards
#
# Needs redis-server (and redis-cli) and nginx: apt-get install redis-server nginx.
# Exits 0 when every check passed; otherwise says which failed and prints the logs.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
deadline_secs="${REPLICAS_DEADLINE_SECS:-120}"
python="${PYTHON:-python3}"
store_mode="${REPLICAS_SESSION_STORE:-redis}"

say() { echo "replicas: $*"; }

tmp=""
pids=()

dump_logs() {
    [ -n "$tmp" ] || return 0
    local file
    for file in redis.log replica1.log replica2.log nginx/error.log nginx/access.log rounds.log client.log; do
        if [ -s "$tmp/$file" ]; then
            echo "---- $file (last 80 lines)"
            tail -n 80 "$tmp/$file"
        fi
    done
}

fail() {
    echo "replicas: FAILED: $*" >&2
    dump_logs >&2
    exit 1
}

cleanup() {
    local pid
    for pid in "${pids[@]}"; do
        kill "$pid" 2>/dev/null || true
    done
    for pid in "${pids[@]}"; do
        wait "$pid" 2>/dev/null || true
    done
    if [ -n "$tmp" ]; then
        if [ "${REPLICAS_KEEP_TMP:-0}" = 1 ]; then
            say "kept $tmp"
        else
            rm -rf "$tmp"
        fi
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Runs "$@" until it succeeds; fails the run after the deadline. Waits are for events (a
# socket answering, a line in a log, a file appearing), polled; nothing is timed.
wait_until() {
    local what="$1"
    shift
    local give_up=$((SECONDS + deadline_secs))
    until "$@"; do
        if [ "$SECONDS" -ge "$give_up" ]; then
            fail "gave up after ${deadline_secs}s waiting for $what"
        fi
        sleep 0.05
    done
}

alive() { kill -0 "$1" 2>/dev/null; }

# ---- what we need
[ $# -ge 1 ] || { echo "usage: $0 PATH/TO/toolwright" >&2; exit 2; }
toolwright="$(realpath "$1")"
[ -x "$toolwright" ] || fail "no toolwright binary at $1 (build it: cargo build -p toolwright-cli)"
redis_server="$(command -v redis-server || true)"
redis_cli="$(command -v redis-cli || true)"
nginx="$(command -v nginx || { [ -x /usr/sbin/nginx ] && echo /usr/sbin/nginx; } || true)"
[ -n "$redis_server" ] && [ -n "$redis_cli" ] || fail "redis-server and redis-cli are needed: apt-get install redis-server"
[ -n "$nginx" ] || fail "nginx is needed: apt-get install nginx"
"$python" -c 'import mcp' 2>/dev/null || fail "$python has no \`mcp\` package: pip install mcp==2.3.0 (or set PYTHON)"
# The flags the replicas run with (a toolwright without them fails here, saying which).
serve_help="$("$toolwright" serve --help 2>&1 || true)"
for flag in --session-store-env --auth-token-env --auth-token-file --allow-host; do
    grep -q -- "$flag" <<<"$serve_help" \
        || fail "$toolwright serve has no $flag flag; this test needs a toolwright that has it"
done
case "$store_mode" in
    redis | none) ;;
    *) fail "REPLICAS_SESSION_STORE must be \`redis\` or \`none\`, not \`$store_mode\`" ;;
esac

tmp="$(mktemp -d "${TMPDIR:-/tmp}/toolwright-replicas.XXXXXX")"
mkdir -p "$tmp/root" "$tmp/nginx" "$tmp/state"

free_port() {
    "$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# ---- Redis, on a Unix socket in the temporary directory
redis_socket="$tmp/redis.sock"
"$redis_server" --port 0 --unixsocket "$redis_socket" --unixsocketperm 700 \
    --save "" --appendonly no --dir "$tmp" --daemonize no --logfile "" \
    >"$tmp/redis.log" 2>&1 &
redis_pid=$!
pids+=("$redis_pid")
redis_ready() {
    alive "$redis_pid" || fail "redis-server exited at start"
    [ "$("$redis_cli" -s "$redis_socket" ping 2>/dev/null)" = PONG ]
}
wait_until "redis-server to answer PING on $redis_socket" redis_ready
say "redis-server answers on $redis_socket"

# ---- the token and the proxy's port (the replicas must allow its Host header)
TOOLWRIGHT_TOKEN="$(od -An -N24 -tx1 /dev/urandom | tr -d ' \n')"
export TOOLWRIGHT_TOKEN
# A second caller's token, just as valid: it must not be able to use the first caller's
# session on either replica (the session's owner is stored with it in Redis).
TOOLWRIGHT_TOKEN_B="$(od -An -N24 -tx1 /dev/urandom | tr -d ' \n')"
export TOOLWRIGHT_TOKEN_B
mkdir -p "$tmp/secrets"
(umask 077 && printf '%s tools:safe\n' "$TOOLWRIGHT_TOKEN_B" >"$tmp/secrets/tokens")
proxy_port="$(free_port)"

# ---- two replicas; each picks a free port and prints its URL once it listens
# The store's URL from the environment, never the command line (where a password would
# show in `ps`).
TOOLWRIGHT_SESSION_STORE="redis+unix://$redis_socket"
export TOOLWRIGHT_SESSION_STORE
# The key that seals an approval's state (MCP 2026-07-28), the same on both replicas.
TOOLWRIGHT_STATE_KEY="$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')"
export TOOLWRIGHT_STATE_KEY
replica_flags=(--auth-token-env TOOLWRIGHT_TOKEN --auth-token-file "$tmp/secrets/tokens"
    --allow-host "127.0.0.1:$proxy_port" --request-state-key-env TOOLWRIGHT_STATE_KEY)
if [ "$store_mode" = redis ]; then
    replica_flags+=(--session-store-env TOOLWRIGHT_SESSION_STORE)
else
    say "REPLICAS_SESSION_STORE=none: replicas without the session store; this run must fail"
fi
replica_listening() {
    alive "$1" || fail "replica $2 exited at start (see replica$2.log below)"
    grep -q 'http://127\.0\.0\.1:[0-9][0-9]*/mcp' "$tmp/replica$2.log"
}
replica_pids=()
replica_ports=()
for i in 1 2; do
    "$toolwright" serve --http 127.0.0.1:0 --root "$tmp/root" "${replica_flags[@]}" \
        >"$tmp/replica$i.log" 2>&1 &
    pid=$!
    pids+=("$pid")
    replica_pids+=("$pid")
    wait_until "replica $i to print the URL it listens on" replica_listening "$pid" "$i"
    port="$(grep -o 'http://127\.0\.0\.1:[0-9][0-9]*/mcp' "$tmp/replica$i.log" | head -n 1 | sed 's/.*:\([0-9]*\)\/mcp/\1/')"
    replica_ports+=("$port")
    say "replica $i (pid $pid) listens on 127.0.0.1:$port"
done
replica1="127.0.0.1:${replica_ports[0]}"
replica2="127.0.0.1:${replica_ports[1]}"

# ---- nginx in front, round robin over both, as the current user under $tmp/nginx
sed -e "s|@DIR@|$tmp/nginx|g" \
    -e "s|@USER@|$(id -un)|g" \
    -e "s|@PROXY_PORT@|$proxy_port|g" \
    -e "s|@REPLICA1_PORT@|${replica_ports[0]}|g" \
    -e "s|@REPLICA2_PORT@|${replica_ports[1]}|g" \
    "$here/nginx.conf.template" >"$tmp/nginx/nginx.conf"
nginx_args=(-p "$tmp/nginx/" -c "$tmp/nginx/nginx.conf" -e "$tmp/nginx/error.log")
"$nginx" -t -q "${nginx_args[@]}" 2>"$tmp/nginx/check.log" \
    || fail "nginx rejects the configuration: $(cat "$tmp/nginx/check.log")"
"$nginx" "${nginx_args[@]}" 2>>"$tmp/nginx/error.log" &
nginx_pid=$!
pids+=("$nginx_pid")
proxy_accepts() {
    alive "$nginx_pid" || fail "nginx exited at start (port $proxy_port taken?)"
    (exec 3<>"/dev/tcp/127.0.0.1/$proxy_port") 2>/dev/null
}
wait_until "nginx to accept connections on 127.0.0.1:$proxy_port" proxy_accepts
say "nginx (pid $nginx_pid) proxies 127.0.0.1:$proxy_port to $replica1 and $replica2"

# ---- MCP 2026-07-28: an approval's two rounds on different replicas, then its replay
if [ "$store_mode" = redis ]; then
    "$python" "$here/rounds.py" "http://127.0.0.1:$proxy_port/mcp" "$tmp/root" "http://$replica1/mcp" \
        >"$tmp/rounds.log" 2>&1 || { cat "$tmp/rounds.log"; fail "the approval across replicas failed (rounds.log above)"; }
    sed 's/^/replicas: | /' "$tmp/rounds.log"
    # The write_file calls as nginx logged them: round 1 answered by replica 1, the repeated
    # call by replica 2.
    write_calls() {
        awk -F'|' '$9 == "tools/call" && $10 == "write_file" { print $11 "|" $5 "|" $4 }' "$tmp/nginx/access.log"
    }
    rounds_logged() { [ "$(write_calls | wc -l)" -ge 2 ]; }
    wait_until "nginx's access log to show both rounds of the approval" rounds_logged
    write_calls | grep -qx "1|$replica1|200" || fail "nginx shows no first round answered by $replica1: $(write_calls)"
    write_calls | grep -qx "2|$replica2|200" || fail "nginx shows no repeated call answered by $replica2: $(write_calls)"
    say "nginx's access log: the approval's rounds (pinned|replica|status):"
    write_calls | sed 's/^/replicas:   /'
fi

# ---- the client: 401 without the token, then one session through the proxy
state="$tmp/state"
"$python" "$here/client.py" "http://127.0.0.1:$proxy_port/mcp" "$state" "http://$replica2/mcp" \
    >"$tmp/client.log" 2>&1 &
client_pid=$!
pids+=("$client_pid")
client_at_kill_point() {
    [ -e "$state/phase1.done" ] && return 0
    alive "$client_pid" || fail "the client failed before replica 1 was killed (client.log below)"
    return 1
}
wait_until "the client's first calls" client_at_kill_point
session_id="$(cat "$state/session-id")"
say "the client's session: $session_id"

# The session's requests, as nginx logged them (fields: see nginx.conf.template).
session_log() {
    awk -F'|' -v sid="$session_id" '$7 == sid || $8 == sid' "$tmp/nginx/access.log"
}
# Whether a request of the session got a 2xx answer from replica $1 (the last one tried).
answered_by() {
    session_log | awk -F'|' -v addr="$1" '
        { n = split($5, tried, ", "); if (tried[n] == addr && $4 ~ /^2/) found = 1 }
        END { exit !found }'
}
both_answered() { answered_by "$replica1" && answered_by "$replica2"; }
wait_until "nginx's access log to show session $session_id answered by both $replica1 and $replica2" both_answered
say "nginx's access log: the one session was answered by both replicas:"
session_log | awk -F'|' '{ printf "replicas:   %-6s status %s from %s\n", $2, $4, $5 }'

if [ "$store_mode" = redis ]; then
    key="toolwright:mcp:session:$session_id"
    ttl="$("$redis_cli" -s "$redis_socket" ttl "$key")"
    [ "$ttl" -gt 0 ] 2>/dev/null || fail "the session is not in Redis with a TTL (TTL $key: $ttl)"
    say "Redis holds $key (TTL ${ttl}s)"
fi

# ---- kill replica 1 in the middle of the session
kill -KILL "${replica_pids[0]}"
wait "${replica_pids[0]}" 2>/dev/null || true
kill_time="$(date +%s.%N)"
say "killed replica 1 ($replica1) with SIGKILL"
: >"$state/replica1.killed"

client_finished() { ! alive "$client_pid"; }
wait_until "the client to finish" client_finished
client_status=0
wait "$client_pid" || client_status=$?
[ "$client_status" -eq 0 ] || fail "the client failed after replica 1 was killed (exit $client_status; client.log below)"
[ -e "$state/client.done" ] || fail "the client stopped without finishing (client.log below)"
sed 's/^/replicas: | /' "$tmp/client.log"

# After the kill: every request of the session answered 2xx, some after nginx found replica 1
# dead and moved on to replica 2 ("replica1, replica2" in $upstream_addr).
after_kill() {
    session_log | awk -F'|' -v t="$kill_time" '$1 > t && ($2 == "POST" || $2 == "DELETE")'
}
# The client made 7 POSTs after the kill (6 calls, 1 listing); nginx logs each as it ends.
calls_logged() { [ "$(after_kill | awk -F'|' '$2 == "POST"' | wc -l)" -ge 7 ]; }
wait_until "nginx's access log to show the client's calls after the kill" calls_logged
bad="$(after_kill | awk -F'|' '$4 !~ /^2/')"
[ -z "$bad" ] || fail "requests of the session failed through the proxy after the kill: $bad"
moved="$(after_kill | awk -F'|' -v addr="$replica1, $replica2" '$5 == addr' | wc -l)"
[ "$moved" -ge 1 ] || fail "no request after the kill shows nginx moving from $replica1 to $replica2"
say "after the kill: $(after_kill | wc -l) requests of the session answered 2xx; nginx moved $moved of them from the dead replica to $replica2"

if [ "$store_mode" = redis ]; then
    exists="$("$redis_cli" -s "$redis_socket" exists "toolwright:mcp:session:$session_id")"
    [ "$exists" = 0 ] || fail "the client ended its session (DELETE) but Redis still holds it"
    say "the client's DELETE removed the session from Redis"
fi

alive "${replica_pids[1]}" || fail "replica 2 died"
say "PASSED: one MCP session served by two replicas through nginx, and it survived SIGKILL of one"
