"""Interop test: the official Python MCP SDK (`mcp` on PyPI) against `toolbox serve`.

Usage: python mcp_interop.py PATH/TO/toolbox

Runs the same checks over stdio and over streamable HTTP: initialize, list tools (schemas and
annotations), call a safe tool, call with bad arguments (isError and the message), call an
unknown tool (JSON-RPC invalid params), call a dangerous tool (denied, did not run), and, for
a client that supports elicitation, approve a dangerous call through it.
"""

import asyncio
import os
import socket
import subprocess
import sys
import tempfile
import time

from mcp import ClientSession, MCPError, StdioServerParameters, stdio_client, types
from mcp.client.streamable_http import streamable_http_client

EXPECTED_TOOLS = {
    "read_file", "list_directory", "file_info", "search_files", "find_files", "write_file",
    "edit_file", "create_directory", "delete_path", "run_command", "calculate", "json_query",
    "current_time", "list_tools", "describe_tool", "search_tools",
}


def check(condition, message):
    if not condition:
        raise AssertionError(message)


async def exercise(session: ClientSession, root: str, label: str) -> None:
    init = await session.initialize()
    check(init.server_info.name == "toolbox", f"server name: {init.server_info.name}")
    check(init.capabilities.tools is not None and init.capabilities.tools.list_changed, "tools.listChanged")

    tools, cursor = [], None
    while True:
        page = await session.list_tools(params=types.PaginatedRequestParams(cursor=cursor))
        tools += page.tools
        cursor = page.next_cursor
        if cursor is None:
            break
    by_name = {tool.name: tool for tool in tools}
    check(set(by_name) == EXPECTED_TOOLS, f"tools: {sorted(by_name)}")
    for tool in tools:
        check(tool.input_schema.get("type") == "object", f"{tool.name} input schema")
        hints = tool.annotations
        for hint in ("read_only_hint", "destructive_hint", "idempotent_hint", "open_world_hint"):
            check(getattr(hints, hint) is not None, f"{tool.name}: {hint} not set")
    check(by_name["read_file"].annotations.read_only_hint is True, "read_file is read-only")
    check(by_name["write_file"].annotations.destructive_hint is True, "write_file is destructive")
    check(by_name["create_directory"].annotations.destructive_hint is False, "create_directory is not destructive")
    check(by_name["file_info"].output_schema is not None, "file_info has an output schema")
    check("path" in by_name["read_file"].input_schema["properties"], "read_file has `path`")

    result = await session.call_tool("calculate", {"expression": "6 * 7"})
    check(result.is_error is False, f"calculate failed: {result}")
    check(result.content[0].text == "42", f"calculate: {result.content[0].text}")

    result = await session.call_tool("read_file", {"path": "hello.txt"})
    check(result.is_error is False and result.content[0].text == "hello from python\n", f"read_file: {result}")

    result = await session.call_tool("file_info", {"path": "hello.txt"})
    check(result.is_error is False and result.structured_content["size"] == 18, f"file_info: {result}")

    result = await session.call_tool("calculate", {"expr": "1"})
    check(result.is_error is True, "bad arguments are an error result")
    text = result.content[0].text
    check("missing required parameter `expression`" in text, f"bad arguments message: {text}")
    check("unknown parameter `expr`" in text, f"bad arguments message: {text}")

    try:
        await session.call_tool("no_such_tool", {})
        raise AssertionError("an unknown tool must be a JSON-RPC error")
    except MCPError as error:
        check(error.code == types.INVALID_PARAMS, f"unknown tool code: {error.code}")
        check("unknown tool `no_such_tool`" in error.message, f"unknown tool message: {error.message}")

    target = os.path.join(root, f"denied-{label}.txt")
    result = await session.call_tool("write_file", {"path": f"denied-{label}.txt", "content": "x"})
    check(result.is_error is True, "a dangerous tool without approval is refused")
    check("cannot ask you to approve" in result.content[0].text, f"denial message: {result.content[0].text}")
    check(not os.path.exists(target), "the dangerous tool did not run")


async def approve(context, params: types.ElicitRequestParams) -> types.ElicitResult:
    check("write_file" in params.message, f"the user is told the tool: {params.message}")
    return types.ElicitResult(action="accept", content={"approve": True})


async def approved_write(session: ClientSession, root: str) -> None:
    await session.initialize()
    result = await session.call_tool("write_file", {"path": "approved.txt", "content": "yes"})
    check(result.is_error is False, f"approved write failed: {result}")
    with open(os.path.join(root, "approved.txt")) as written:
        check(written.read() == "yes", "approved write content")


async def over_stdio(toolbox: str, root: str) -> None:
    params = StdioServerParameters(command=toolbox, args=["serve", "--root", root])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await exercise(session, root, "stdio")
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, elicitation_callback=approve) as session:
            await approved_write(session, root)
    print("stdio: OK")


async def over_http(toolbox: str, root: str) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [toolbox, "serve", "--http", f"127.0.0.1:{port}", "--root", root],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = server.stderr.readline()
        check(f"http://127.0.0.1:{port}/mcp" in line, f"server did not start: {line}")
        async with streamable_http_client(f"http://127.0.0.1:{port}/mcp", terminate_on_close=False) as (read, write):
            async with ClientSession(read, write) as session:
                await exercise(session, root, "http")
    finally:
        server.terminate()
        server.wait(timeout=10)
    print("streamable HTTP: OK")


def main() -> None:
    toolbox = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory() as root:
        with open(os.path.join(root, "hello.txt"), "w") as hello:
            hello.write("hello from python\n")
        started = time.monotonic()
        asyncio.run(over_stdio(toolbox, root))
        asyncio.run(over_http(toolbox, root))
        print(f"python MCP interop passed in {time.monotonic() - started:.1f}s")


if __name__ == "__main__":
    main()
