"""The official Python MCP SDK (`mcp` on PyPI, its `Client` in default mode: MCP 2026-07-28)
against `toolwright serve --config` in front of `@modelcontextprotocol/server-everything`
from npm, over streamable HTTP with a bearer token: the upstream's resources, resource
templates, prompts and completions mounted beside its tools, and a question of the upstream
answered through the gateway.

Usage: python python_primitives.py PATH/TO/toolwright

Checks: the upstream's resources are listed under `everything+demo://...` and read there
(contents named in the namespace); a template read by a URI it matches; a URI outside the
namespace is not the upstream's (resource not found); its prompts listed as `everything_*`
and got with arguments; its completions forwarded (the second argument's narrowed by the
first, as context); `trigger-elicitation-request`, a tool of server-everything that asks
the person for a form, approved and its question answered through the gateway by a client
of the handshake era (the answer reaches the upstream: it says the name back).
"""

import asyncio
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading

import httpx2
from mcp import types
from mcp.client.client import Client
from mcp.client.streamable_http import streamable_http_client

TOKEN = "gateway-primitives-token-0123456789abcdef"
DEADLINE_SECONDS = 120
ASKED: list = []


def check(condition, message):
    if not condition:
        raise AssertionError(message)


async def person(context, params: types.ElicitRequestParams) -> types.ElicitResult:
    """Approves the call, then fills in the upstream's form with a name."""
    ASKED.append(params.message)
    if "upstream MCP server" in params.message and "asks:" in params.message:
        return types.ElicitResult(action="accept", content={"name": "Ada Lovelace"})
    return types.ElicitResult(action="accept", content={"approve": True})


def client(url: str, **kwargs) -> Client:
    http = httpx2.AsyncClient(headers={"authorization": f"Bearer {TOKEN}"}, timeout=httpx2.Timeout(60.0, read=300.0))
    return Client(streamable_http_client(url, http_client=http), **kwargs)


async def exercise(url: str) -> None:
    async with client(url, elicitation_callback=person) as session:
        resources = (await session.list_resources()).resources
        uris = sorted(r.uri for r in resources)
        doc = "everything+demo://resource/static/document/features.md"
        check(doc in uris, f"the upstream's resources under the namespace: {uris}")
        check(all(not u.startswith("demo://") for u in uris), f"no upstream URI as it was: {uris}")
        read = await session.read_resource(doc)
        check(read.contents and read.contents[0].uri == doc, f"contents named in the namespace: {read}")
        check(len(read.contents[0].text) > 0, "the document's text")

        templates = [t.uri_template for t in (await session.list_resource_templates()).resource_templates]
        template = "everything+demo://resource/dynamic/text/{resourceId}"
        check(template in templates, f"the upstream's templates under the namespace: {templates}")
        read = await session.read_resource("everything+demo://resource/dynamic/text/7")
        check(read.contents[0].uri == "everything+demo://resource/dynamic/text/7", f"template read: {read}")

        try:
            await session.read_resource("demo://resource/static/document/features.md")
            raise AssertionError("the upstream's own URI is not ours to read")
        except AssertionError:
            raise
        except Exception as error:  # the SDK's McpError
            print(f"outside the namespace: refused ({error})")

        prompts = {p.name: p for p in (await session.list_prompts()).prompts}
        for name in ("everything_simple_prompt", "everything_args_prompt", "everything_completable_prompt"):
            check(name in prompts, f"{name} listed: {sorted(prompts)}")
        arguments = {a.name: a.required for a in prompts["everything_args_prompt"].arguments}
        check(arguments == {"city": True, "state": False}, f"the arguments kept: {arguments}")
        got = await session.get_prompt("everything_args_prompt", {"city": "Paris", "state": "TX"})
        check("Paris, TX" in got.messages[0].content.text, f"the prompt with arguments: {got}")

        ref = types.PromptReference(type="ref/prompt", name="everything_completable_prompt")
        done = await session.complete(ref, {"name": "department", "value": "Eng"})
        check(done.completion.values == ["Engineering"], f"completion forwarded: {done}")
        done = await session.complete(ref, {"name": "name", "value": ""}, {"department": "Sales"})
        check(done.completion.values == ["David", "Eve", "Frank"], f"completion with context: {done}")

    # The upstream asks in the middle of its call: a client of the handshake era answers
    # while the call waits (in MCP 2026-07-28 a question is answered by calling again, which
    # would call the upstream twice for one approval, so the gateway does not ask it then).
    async with client(url, elicitation_callback=person, mode="legacy") as session:
        asked = len(ASKED)
        result = await session.call_tool("everything_trigger_elicitation_request", {})
        check(result.is_error is False, f"the call that asks: {result}")
        text = "\n".join(block.text for block in result.content if block.type == "text")
        check("Name: Ada Lovelace" in text, f"the answer reached the upstream: {text}")
        check(len(ASKED) == asked + 2, f"asked to approve, then the upstream's question: {ASKED[asked:]}")
        check("Please provide inputs" in ASKED[-1], f"the upstream's question, attributed: {ASKED[-1]}")


def main() -> None:
    toolwright = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory() as secrets, tempfile.TemporaryDirectory() as root:
        tokens = os.path.join(secrets, "tokens")
        with open(tokens, "w") as f:
            f.write(f"{TOKEN} tools:safe tools:cautious tools:dangerous tools:approve\n")
        os.chmod(tokens, 0o600)
        config = os.path.join(secrets, "gateway.toml")
        npm = os.path.join(secrets, "npm")
        subprocess.run(
            ["npm", "install", "--silent", "--no-audit", "--no-fund", "--prefix", npm,
             "@modelcontextprotocol/server-everything@2026.8.31"],
            check=True, stdout=subprocess.DEVNULL,
        )
        q = json.dumps
        with open(config, "w") as f:
            f.write(
                '[[upstream]]\nnamespace = "everything"\n'
                f'command = {q(os.path.join(npm, "node_modules/.bin/mcp-server-everything"))}\n'
                'args = ["stdio"]\n'
                f'sandbox = {{ read = [{q(npm)}] }}\n'
            )
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        server = subprocess.Popen(
            [toolwright, "serve", "--http", f"127.0.0.1:{port}", "--root", root,
             "--config", config, "--auth-token-file", tokens],
            stderr=subprocess.PIPE, text=True,
        )
        try:
            url = f"http://127.0.0.1:{port}/mcp"
            seen = []
            for line in server.stderr:
                seen.append(line)
                if url in line:
                    break
            else:
                raise AssertionError(f"the gateway did not start: {''.join(seen)}")
            threading.Thread(target=lambda: [None for _ in server.stderr], daemon=True).start()
            asyncio.run(asyncio.wait_for(exercise(url), DEADLINE_SECONDS * 3))
        finally:
            server.terminate()
            server.wait(timeout=30)
    print("python SDK: resources, prompts, completions and a question through the gateway: OK")


if __name__ == "__main__":
    main()
