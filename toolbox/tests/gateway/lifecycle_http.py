"""A minimal MCP client over streamable HTTP (standard library only) for the gateway's
lifecycle checks in real_servers.sh: it waits for `/readyz` to name upstreams in a state,
and calls a tool.

Usage:
  lifecycle_http.py ready URL TEXT...     wait until one line of /readyz has every TEXT
  lifecycle_http.py absent URL TEXT       wait until no line of /readyz has TEXT
  lifecycle_http.py call URL TOOL JSON    call TOOL; print its text; exit 1 on a tool error
Every wait ends with a failure after two minutes.
"""

import json
import sys
import time
import urllib.error
import urllib.request

DEADLINE_SECONDS = 120


def readyz(url):
    try:
        with urllib.request.urlopen(url + "/readyz", timeout=30) as response:
            return response.read().decode()
    except urllib.error.HTTPError as error:
        return error.read().decode()
    except OSError:
        return ""


def wait(url, done, what):
    deadline = time.monotonic() + DEADLINE_SECONDS
    while True:
        text = readyz(url)
        if done(text):
            return
        if time.monotonic() > deadline:
            sys.exit(f"lifecycle_http.py: /readyz never showed {what}; last:\n{text}")
        # /readyz is asked again soon: it has no event to wait on.
        time.sleep(0.1)


def post(url, message, session=None):
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2025-06-18",
    }
    if session:
        headers["Mcp-Session-Id"] = session
    request = urllib.request.Request(
        url + "/mcp", data=json.dumps(message).encode(), headers=headers, method="POST"
    )
    with urllib.request.urlopen(request, timeout=120) as response:
        session = response.headers.get("Mcp-Session-Id", session)
        kind = response.headers.get("Content-Type", "")
        body = response.read().decode()
    if "id" not in message:
        return None, session
    if "text/event-stream" in kind:
        for line in body.splitlines():
            if line.startswith("data:") and line[5:].strip():
                data = json.loads(line[5:])
                if data.get("id") == message["id"]:
                    return data, session
        sys.exit(f"lifecycle_http.py: no answer in the stream:\n{body}")
    return json.loads(body), session


def call(url, tool, arguments):
    hello = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "lifecycle_http", "version": "1"},
        },
    }
    _, session = post(url, hello)
    post(url, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
    answer, _ = post(
        url,
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": tool, "arguments": arguments}},
        session,
    )
    if "error" in answer:
        print(json.dumps(answer["error"]))
        sys.exit(1)
    result = answer["result"]
    print(" ".join(block.get("text", "") for block in result.get("content", [])))
    sys.exit(1 if result.get("isError") else 0)


command, url = sys.argv[1], sys.argv[2].rstrip("/")
if command == "ready":
    texts = sys.argv[3:]
    wait(url, lambda text: any(all(t in line for t in texts) for line in text.splitlines()),
         " and ".join(texts))
elif command == "absent":
    wait(url, lambda text: text.startswith(("ready", "not ready")) and sys.argv[3] not in text,
         f"no {sys.argv[3]}")
elif command == "call":
    call(url, sys.argv[3], json.loads(sys.argv[4]))
else:
    sys.exit(__doc__)
