"""The client side of the replica test (run by run.sh): the official Python MCP SDK through nginx.

Usage: python client.py PROXY_URL STATE_DIR REPLICA2_URL

Reads the bearer token from $TOOLWRIGHT_TOKEN, and another caller's from $TOOLWRIGHT_TOKEN_B. In
order:

1. Requests without a token, and with a wrong one, are refused with 401.
2. One session: initialize, list the tools, call `calculate` ("6*7" -> 42) several times.
   The other caller's token, valid too, tries the session on replica 2 directly: a call,
   the GET stream and DELETE each get 403, and the session goes on. Writes the session id to STATE_DIR/session-id, then STATE_DIR/phase1.done, and waits for
   run.sh to create STATE_DIR/replica1.killed (it kills a replica in between).
3. The same session goes on: more calls and a listing, all of which must succeed.
4. Leaves (the SDK sends DELETE, ending the session), then writes STATE_DIR/client.done.

Every HTTP request the SDK makes after initialize must carry the one session id (checked
with an httpx2 event hook), so a client that silently started over would fail here. Exits
non-zero with the reason on any failure.
"""

import asyncio
import os
import sys
import time
import traceback

import httpx2
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

CALLS_PER_PHASE = 6
# Generous: nothing here measures time; these only stop a hung run.
PHASE_DEADLINE_SECONDS = 120
HTTP_TIMEOUT = httpx2.Timeout(60.0, read=300.0)


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def say(message):
    print(f"client: {message}", flush=True)


async def refused_without_the_token(url: str) -> None:
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "replica-test", "version": "1.0.0"},
        },
    }
    headers = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
    async with httpx2.AsyncClient(timeout=HTTP_TIMEOUT, trust_env=False) as client:
        for label, extra in (("no token", {}), ("a wrong token", {"authorization": "Bearer not-the-token"})):
            response = await client.post(url, json=initialize, headers={**headers, **extra})
            check(
                response.status_code == 401,
                f"a request with {label} through the proxy got {response.status_code}, not 401: {response.text[:300]}",
            )
            check("mcp-session-id" not in response.headers, f"a request with {label} got a session")
    say("requests without the token, or with a wrong one, get 401")


class SessionWatch:
    """Sees every request and response of the SDK's HTTP client."""

    def __init__(self) -> None:
        self.session_id = None
        self.requests_after_initialize = 0
        self.problems = []

    async def on_request(self, request: httpx2.Request) -> None:
        if self.session_id is None:
            return
        self.requests_after_initialize += 1
        sent = request.headers.get("mcp-session-id")
        if sent != self.session_id:
            self.problems.append(f"{request.method} sent session {sent!r}, not {self.session_id!r}")

    async def on_response(self, response: httpx2.Response) -> None:
        given = response.headers.get("mcp-session-id")
        if given and self.session_id is None:
            self.session_id = given
        elif given and given != self.session_id:
            self.problems.append(f"the server gave a second session id {given!r}")
        if response.status_code == 404 and self.session_id is not None:
            self.problems.append(f"{response.request.method} got 404: the session was not found")


async def calculate(session: ClientSession, label: str) -> None:
    result = await session.call_tool("calculate", {"expression": "6*7"})
    check(result.is_error is False, f"calculate {label} failed: {result}")
    text = result.content[0].text
    check(text == "42", f"calculate {label} gave {text!r}, not 42")


async def takeover_refused(replica2_url: str, token_b: str, session_id: str) -> None:
    """Another caller's valid token cannot use, listen to, or end the session on replica 2."""
    headers = {
        "authorization": f"Bearer {token_b}",
        "mcp-session-id": session_id,
        "mcp-protocol-version": "2025-06-18",
    }
    call = {
        "jsonrpc": "2.0",
        "id": 99,
        "method": "tools/call",
        "params": {"name": "calculate", "arguments": {"expression": "6*7"}},
    }
    async with httpx2.AsyncClient(timeout=HTTP_TIMEOUT, trust_env=False) as client:
        answers = {
            "a call": await client.post(
                replica2_url,
                json=call,
                headers={**headers, "accept": "application/json, text/event-stream"},
            ),
            "the GET stream": await client.get(
                replica2_url, headers={**headers, "accept": "text/event-stream"}
            ),
            "DELETE": await client.delete(replica2_url, headers=headers),
        }
    for label, response in answers.items():
        check(
            response.status_code == 403,
            f"another caller's token got {response.status_code}, not 403, for {label} of the "
            f"session on replica 2: {response.text[:300]}",
        )
    say("another caller's token gets 403 on replica 2 for a call, the GET stream and DELETE")


async def wait_for_file(path: str) -> None:
    """Waits until run.sh creates `path` (the event), within the phase deadline."""
    deadline = time.monotonic() + PHASE_DEADLINE_SECONDS
    while not os.path.exists(path):
        check(time.monotonic() < deadline, f"run.sh did not create {path} in time")
        await asyncio.sleep(0.05)


async def one_session(url: str, token: str, state_dir: str, replica2_url: str, token_b: str) -> None:
    watch = SessionWatch()
    http = httpx2.AsyncClient(
        headers={"authorization": f"Bearer {token}"},
        timeout=HTTP_TIMEOUT,
        trust_env=False,
        event_hooks={"request": [watch.on_request], "response": [watch.on_response]},
    )
    async with http:
        async with streamable_http_client(url, http_client=http) as (read, write):
            async with ClientSession(read, write) as session:
                init = await asyncio.wait_for(session.initialize(), PHASE_DEADLINE_SECONDS)
                check(init.server_info.name == "toolwright", f"server name: {init.server_info.name}")
                check(watch.session_id is not None, "initialize gave no Mcp-Session-Id")
                say(f"initialized session {watch.session_id}")
                with open(os.path.join(state_dir, "session-id"), "w") as out:
                    out.write(watch.session_id)

                async def before_the_kill() -> None:
                    tools = await session.list_tools()
                    names = {tool.name for tool in tools.tools}
                    check("calculate" in names, f"tools: {sorted(names)}")
                    for i in range(CALLS_PER_PHASE):
                        await calculate(session, f"call {i + 1} before the kill")

                await asyncio.wait_for(before_the_kill(), PHASE_DEADLINE_SECONDS)
                check(not watch.problems, "; ".join(watch.problems))
                say(f"listed tools and called calculate {CALLS_PER_PHASE} times: 6*7 = 42")

                await asyncio.wait_for(
                    takeover_refused(replica2_url, token_b, watch.session_id), PHASE_DEADLINE_SECONDS
                )
                # The session is still the first caller's, and still open.
                await asyncio.wait_for(calculate(session, "after the takeover attempt"), PHASE_DEADLINE_SECONDS)

                open(os.path.join(state_dir, "phase1.done"), "w").close()
                await wait_for_file(os.path.join(state_dir, "replica1.killed"))
                say("replica 1 was killed; calling on in the same session")

                async def after_the_kill() -> None:
                    for i in range(CALLS_PER_PHASE):
                        await calculate(session, f"call {i + 1} after the kill")
                    tools = await session.list_tools()
                    check(any(tool.name == "calculate" for tool in tools.tools), "tools after the kill")

                await asyncio.wait_for(after_the_kill(), PHASE_DEADLINE_SECONDS)
                check(not watch.problems, "; ".join(watch.problems))
                say(f"called calculate {CALLS_PER_PHASE} more times and listed the tools: all succeeded")
    check(not watch.problems, "; ".join(watch.problems))
    check(watch.requests_after_initialize > 0, "no requests were watched")
    say(f"{watch.requests_after_initialize} requests after initialize, all in session {watch.session_id}")


async def main() -> None:
    url, state_dir, replica2_url = sys.argv[1], sys.argv[2], sys.argv[3]
    token = os.environ.get("TOOLWRIGHT_TOKEN")
    check(token, "TOOLWRIGHT_TOKEN is not set")
    token_b = os.environ.get("TOOLWRIGHT_TOKEN_B")
    check(token_b, "TOOLWRIGHT_TOKEN_B is not set")
    await refused_without_the_token(url)
    await one_session(url, token, state_dir, replica2_url, token_b)
    open(os.path.join(state_dir, "client.done"), "w").close()


def leaves(error: BaseException) -> list[BaseException]:
    """The exceptions inside (nested) exception groups, or the exception itself."""
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in leaves(inner)]
    return [error]


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except BaseException as error:  # noqa: BLE001 - report whatever stopped the client
        traceback.print_exception(error)
        for cause in leaves(error):
            print(f"client: FAILED: {type(cause).__name__}: {cause}", file=sys.stderr, flush=True)
        raise SystemExit(1) from None
