"""The official Python MCP SDK (`mcp` on PyPI, its `Client` in default mode: MCP 2026-07-28)
against `toolwright serve --config`, over streamable HTTP with a bearer token, in front of
`@modelcontextprotocol/server-everything` and `@modelcontextprotocol/server-memory` from npm
and `mcp-server-time` from PyPI.

Usage: python python_client.py PATH/TO/toolwright
(`mcp-server-time` is taken from beside this Python: the virtual environment .ci/run makes
installs it.)

Checks: no token is refused (401); the three upstreams' tools are listed under their
namespaces; a safe call; a dangerous call refused to a client that cannot approve and
approved through elicitation by one that can (an image comes back as an image; a write to
the memory server, read back); a cautious call that reports progress, forwarded from the
upstream; a slow call cancelled by the client, after which the server still answers.
"""

import asyncio
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading

import anyio
import httpx2
from mcp import types
from mcp.client.client import Client
from mcp.client.streamable_http import streamable_http_client

TOKEN = "gateway-test-token-0123456789abcdef"
DEADLINE_SECONDS = 120
ASKED: list = []


def check(condition, message):
    if not condition:
        raise AssertionError(message)


async def approve(context, params: types.ElicitRequestParams) -> types.ElicitResult:
    """The person: approves, after being told the upstream, the tool and the arguments."""
    ASKED.append(params.message)
    check("upstream MCP server" in params.message, f"the person is told the upstream: {params.message}")
    return types.ElicitResult(action="accept", content={"approve": True})


def client(url: str, **kwargs) -> Client:
    http = httpx2.AsyncClient(headers={"authorization": f"Bearer {TOKEN}"}, timeout=httpx2.Timeout(60.0, read=300.0))
    return Client(streamable_http_client(url, http_client=http), **kwargs)


async def exercise(url: str) -> None:
    async with httpx2.AsyncClient() as plain:
        response = await plain.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
                                    headers={"accept": "application/json, text/event-stream"})
        check(response.status_code == 401, f"no token: {response.status_code}")

    async with client(url) as session:
        names = {tool.name for tool in (await session.list_tools()).tools}
        for name in ("everything_echo", "everything_get_tiny_image", "everything_trigger_long_running_operation",
                     "memory_read_graph", "memory_create_entities", "time_get_current_time", "time_convert_time",
                     "read_file"):
            check(name in names, f"{name} not listed: {sorted(names)}")
        for namespace in ("everything", "memory", "time"):
            mounted = sorted(name for name in names if name.startswith(f"{namespace}_"))
            print(f"{namespace}: {len(mounted)} tools: {', '.join(mounted)}")
        result = await session.call_tool("everything_echo", {"message": "hello gateway"})
        check(result.is_error is False and "hello gateway" in result.content[0].text, f"echo: {result}")
        result = await session.call_tool("everything_get_tiny_image", {})
        check(result.is_error is True, f"a client that cannot approve is refused: {result}")

    async with client(url, elicitation_callback=approve) as session:
        asked = len(ASKED)
        result = await session.call_tool("everything_get_tiny_image", {})
        check(result.is_error is False, f"approved image call: {result}")
        kinds = [block.type for block in result.content]
        check("image" in kinds, f"the image came back as an image: {kinds}")
        check(len(ASKED) == asked + 1, "the person was asked once")

        # A write: the memory server's create_entities, dangerous, approved by elicitation,
        # then read back through a safe tool of the same (confined) server.
        entity = {"name": "gateway-proof", "entityType": "test", "observations": ["written via elicitation"]}
        result = await session.call_tool("memory_create_entities", {"entities": [entity]})
        check(result.is_error is False, f"approved write: {result}")
        check(len(ASKED) == asked + 2, "the person was asked for the write")
        check("memory_create_entities" in str(ASKED[-1]), f"the prompt names the tool: {ASKED[-1]}")
        result = await session.call_tool("memory_read_graph", {})
        check("gateway-proof" in str(result.content), f"the write is there: {result}")

        progress = []

        async def on_progress(value, total, message):
            progress.append(value)

        result = await session.call_tool(
            "everything_trigger_long_running_operation", {"duration": 1, "steps": 3},
            progress_callback=on_progress,
        )
        check(result.is_error is False, f"long-running call: {result}")
        check(len(progress) >= 1, f"progress forwarded from the upstream: {progress}")

        # A slow call cancelled once it has reported progress; the server goes on answering.
        started = anyio.Event()

        async def first_progress(value, total, message):
            started.set()

        async with anyio.create_task_group() as group:
            async def slow():
                await session.call_tool(
                    "everything_trigger_long_running_operation", {"duration": 60, "steps": 60},
                    progress_callback=first_progress,
                )
            group.start_soon(slow)
            with anyio.fail_after(DEADLINE_SECONDS):
                await started.wait()
            group.cancel_scope.cancel()
        result = await session.call_tool("everything_echo", {"message": "still here"})
        check("still here" in result.content[0].text, f"after the cancel: {result}")


def main() -> None:
    toolwright = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory() as secrets, tempfile.TemporaryDirectory() as root:
        tokens = os.path.join(secrets, "tokens")
        with open(tokens, "w") as f:
            f.write(f"{TOKEN} tools:safe tools:cautious tools:dangerous tools:approve\n")
        os.chmod(tokens, 0o600)
        config = os.path.join(secrets, "gateway.toml")
        time_server = os.path.join(os.path.dirname(sys.executable), "mcp-server-time")
        check(os.access(time_server, os.X_OK), f"no {time_server}: pip install mcp-server-time==2026.10.19")
        # Each server installed once and run confined (the CLI's default): it sees the
        # system, its installation and what its `sandbox` grants.
        npm = os.path.join(secrets, "npm")
        subprocess.run(
            ["npm", "install", "--silent", "--no-audit", "--no-fund", "--prefix", npm,
             "@modelcontextprotocol/server-everything@2026.8.31",
             "@modelcontextprotocol/server-memory@2026.8.31"],
            check=True, stdout=subprocess.DEVNULL,
        )
        memory = os.path.join(secrets, "memory")
        os.mkdir(memory)
        venv = os.path.dirname(os.path.dirname(time_server))
        with open(os.path.join(venv, "pyvenv.cfg")) as cfg:
            home = next(l.split("=", 1)[1].strip() for l in cfg if l.startswith("home"))
        q = json.dumps
        with open(config, "w") as f:
            f.write(
                '[[upstream]]\nnamespace = "everything"\n'
                f'command = {q(os.path.join(npm, "node_modules/.bin/mcp-server-everything"))}\n'
                'args = ["stdio"]\n'
                'tools = { "echo" = "safe", "trigger-long-running-operation" = "cautious" }\n'
                f'sandbox = {{ read = [{q(npm)}] }}\n'
                '\n[[upstream]]\nnamespace = "memory"\n'
                f'command = {q(os.path.join(npm, "node_modules/.bin/mcp-server-memory"))}\n'
                f'env = {{ MEMORY_FILE_PATH = {q(os.path.join(memory, "memory.jsonl"))} }}\n'
                f'sandbox = {{ read = [{q(npm)}], write = [{q(memory)}] }}\n'
                f'\n[[upstream]]\nnamespace = "time"\ncommand = {q(time_server)}\n'
                'args = ["--local-timezone", "UTC"]\n'
                f'sandbox = {{ read = [{q(venv)}, {q(os.path.dirname(home))}] }}\n'
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
            # Keep reading its log, so a full pipe never stops the server.
            threading.Thread(target=lambda: [None for _ in server.stderr], daemon=True).start()
            asyncio.run(asyncio.wait_for(exercise(url), DEADLINE_SECONDS * 3))
        finally:
            server.terminate()
            server.wait(timeout=30)
    print("python SDK through the gateway: OK")


if __name__ == "__main__":
    main()
