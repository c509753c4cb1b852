"""The approval of a dangerous call over MCP 2026-07-28 through two replicas (run by run.sh).

Usage: python rounds.py PROXY_URL ROOT REPLICA1_URL

The official Python SDK's `Client` in its default mode (2026-07-28, no session) calls
`write_file` through nginx with the bearer token of $TOOLWRIGHT_TOKEN. The server answers with
an `InputRequiredResult` (the approval form and a sealed `requestState`); the SDK asks the
user (here: approves) and repeats the call with the answer. An httpx2 event hook pins the
first round to replica 1 and the repeated call to replica 2 (the `X-Test-Replica` header
nginx routes on), so the state sealed by one replica is opened by the other. Then the
repeated call's exact body is sent again, to replica 1 directly: the state was used once
(Redis holds the claim), so it is refused and nothing is written twice.

Prints what it saw; exits non-zero with the reason on any failure.
"""

import asyncio
import json
import os
import sys

import httpx2
from mcp import types
from mcp.client.client import Client
from mcp.client.streamable_http import streamable_http_client

HTTP_TIMEOUT = httpx2.Timeout(60.0, read=120.0)


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def say(message):
    print(f"rounds: {message}", flush=True)


async def main(proxy_url: str, root: str, replica1_url: str) -> None:
    token = os.environ["TOOLWRIGHT_TOKEN"]
    rounds = []  # (pinned replica, body) of each tools/call of write_file

    async def pin(request: httpx2.Request) -> None:
        if request.method != "POST":
            return
        try:
            body = json.loads(request.content)
        except ValueError:
            return
        if body.get("method") != "tools/call":
            return
        retry = "requestState" in body.get("params", {})
        request.headers["x-test-replica"] = "2" if retry else "1"
        rounds.append(("2" if retry else "1", body))

    asked = []

    async def approve(context, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        check("`write_file`" in params.message, f"the user is told the tool: {params.message}")
        return types.ElicitResult(action="accept", content={"approve": True})

    http = httpx2.AsyncClient(
        headers={"authorization": f"Bearer {token}"},
        timeout=HTTP_TIMEOUT,
        trust_env=False,
        event_hooks={"request": [pin]},
    )
    async with http:
        transport = streamable_http_client(proxy_url, http_client=http, terminate_on_close=False)
        async with Client(transport, elicitation_callback=approve) as client:
            check(client.protocol_version == "2026-07-28", f"protocol: {client.protocol_version}")
            result = await client.call_tool(
                "write_file", {"path": "approved-across.txt", "content": "approved once\n"}
            )
    check(result.is_error is False, f"the approved write failed: {result}")
    check(len(asked) == 1, f"the user was asked {len(asked)} times")
    check([pinned for pinned, _ in rounds] == ["1", "2"], f"rounds: {[p for p, _ in rounds]}")
    with open(os.path.join(root, "approved-across.txt")) as written:
        check(written.read() == "approved once\n", "the approved content")
    say("round 1 on replica 1 asked for approval; the repeated call on replica 2 ran it")

    # The same approval again, on the replica that did not run it: refused.
    os.remove(os.path.join(root, "approved-across.txt"))
    _, retry = rounds[1]
    async with httpx2.AsyncClient(timeout=HTTP_TIMEOUT, trust_env=False) as raw:
        response = await raw.post(
            replica1_url,
            json=retry,
            headers={
                "authorization": f"Bearer {token}",
                "accept": "application/json, text/event-stream",
                "mcp-protocol-version": "2026-07-28",
                "mcp-method": "tools/call",
                "mcp-name": "write_file",
            },
        )
    text = response.text
    check("already used" in text, f"a replayed approval was not refused: {response.status_code} {text}")
    check(not os.path.exists(os.path.join(root, "approved-across.txt")), "the replay wrote the file")
    say("the same requestState replayed on replica 1: refused, nothing written")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3]))
