"""Interop test: the official Python MCP SDK (`mcp` on PyPI) against `toolwright serve`.

Usage: python mcp_interop.py PATH/TO/toolwright

Runs the same checks over stdio and over streamable HTTP: initialize, list tools (schemas and
annotations), call a safe tool, call with bad arguments (isError and the message), call an
unknown tool (JSON-RPC invalid params), call a dangerous tool (denied, did not run), and, for
a client that supports elicitation, approve a dangerous call through it and approve an edit of
three hunks in part (hunks 1 and 3 of the form's `hunk_1`, `hunk_2`, `hunk_3`).

The approvals run twice per transport: with a `ClientSession` (the handshake era: the server
asks with an `elicitation/create` request while the call waits) and with the SDK's `Client`
in its default mode, which speaks MCP 2026-07-28 (the server answers the call with an
`InputRequiredResult` holding the same form, and the client repeats the call with the
answer).
"""

import asyncio
import os
import socket
import subprocess
import sys
import tempfile
import time

from mcp import ClientSession, MCPError, StdioServerParameters, stdio_client, types
from mcp.client.client import Client
from mcp.client.streamable_http import streamable_http_client

# run_code is offered only with `serve --code-mode` (toolbox/tests/code_mode.rs).
EXPECTED_TOOLS = {
    "read_file", "list_directory", "file_info", "search_files", "find_files", "write_file",
    "edit_file", "create_directory", "delete_path", "run_command", "calculate",
    "json_query",
    "current_time", "list_tools", "describe_tool", "search_tools",
}


def check(condition, message):
    if not condition:
        raise AssertionError(message)


async def exercise(session: ClientSession, root: str, label: str) -> None:
    init = await session.initialize()
    check(init.server_info.name == "toolwright", f"server name: {init.server_info.name}")
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


def numbered(capitals=()) -> str:
    """Thirty numbered lines; those in `capitals` (1-based) in capitals."""
    return "".join(f"LINE {i}\n" if i in capitals else f"line {i}\n" for i in range(1, 31))


# Lines 2, 15 and 28 change: three hunks, far enough apart to be approved one by one.
HUNK_LINES = (2, 15, 28)


# Every message the user was shown, in order.
ASKED: list = []


async def approve(context, params: types.ElicitRequestParams) -> types.ElicitResult:
    """The user: approves a plain call; of an edit of several hunks, applies hunks 1 and 3."""
    ASKED.append(params.message)
    check("write_file" in params.message, f"the user is told the tool: {params.message}")
    properties = params.requested_schema["properties"]
    if "decision" not in properties:
        check(list(properties) == ["approve"], f"a plain approval form: {properties}")
        return types.ElicitResult(action="accept", content={"approve": True})
    check(list(properties) == ["decision", "hunk_1", "hunk_2", "hunk_3"], f"hunk form: {list(properties)}")
    check(params.requested_schema.get("required") == ["decision"], f"required: {params.requested_schema}")
    choices = [choice["const"] for choice in properties["decision"]["oneOf"]]
    check(choices == ["all", "some", "none"], f"decision choices: {choices}")
    hunk = properties["hunk_2"]
    check(hunk["type"] == "boolean" and hunk["default"] is True, f"hunk_2: {hunk}")
    check(hunk["title"] == "Hunk 2 of 3: @@ -12,7 +12,7 @@", f"hunk_2 title: {hunk['title']}")
    check("-line 15\n+LINE 15" in hunk["description"], f"hunk_2 description: {hunk['description']}")
    check("-line 15\n+LINE 15" in params.message, "the message shows the whole diff")
    return types.ElicitResult(
        action="accept", content={"decision": "some", "hunk_1": True, "hunk_2": False, "hunk_3": True}
    )


async def approved_write(call_tool, root: str, label: str) -> None:
    """Approvals through `call_tool` (a session's, or a `Client`'s that drives the rounds)."""
    name = f"approved-{label}.txt"
    result = await call_tool("write_file", {"path": name, "content": "yes"})
    check(result.is_error is False, f"approved write failed: {result}")
    with open(os.path.join(root, name)) as written:
        check(written.read() == "yes", "approved write content")

    # An edit of three hunks, approved in part: exactly hunks 1 and 3 are written.
    name = f"hunks-{label}.txt"
    with open(os.path.join(root, name), "w") as original:
        original.write(numbered())
    result = await call_tool(
        "write_file", {"path": name, "content": numbered(HUNK_LINES), "overwrite": True}
    )
    check(result.is_error is False, f"partly approved write failed: {result}")
    text = result.content[0].text
    check(
        text.startswith(
            f"applied 2 of 3 hunks to `{name}` (hunk 1 @@ -1,5 +1,5 @@, hunk 3 @@ -25,6 +25,6 @@); "
            "the approver rejected hunk 2 @@ -12,7 +12,7 @@"
        ),
        f"partly approved write result: {text}",
    )
    with open(os.path.join(root, name)) as written:
        check(written.read() == numbered((2, 28)), "only hunks 1 and 3 were written")

    # A write through a link: the user is told the file it really changes.
    target, alias = f"target-{label}.txt", f"alias-{label}.txt"
    with open(os.path.join(root, target), "w") as original:
        original.write("old\n")
    os.symlink(target, os.path.join(root, alias))
    result = await call_tool("write_file", {"path": alias, "content": "new\n", "overwrite": True})
    check(result.is_error is False, f"write through a link failed: {result}")
    check(
        f"The file it changes is `{target}`: `{alias}` is a link to it." in ASKED[-1],
        f"the user is told the real file: {ASKED[-1]}",
    )
    # A link into .git: refused before the user is asked.
    os.makedirs(os.path.join(root, ".git"), exist_ok=True)
    with open(os.path.join(root, ".git", "config"), "w") as config:
        config.write("[core]\n")
    link = f"notes-{label}.txt"
    if os.path.lexists(os.path.join(root, link)):
        os.remove(os.path.join(root, link))
    os.symlink(os.path.join(".git", "config"), os.path.join(root, link))
    asked = len(ASKED)
    result = await call_tool(
        "write_file", {"path": link, "content": "[core]\n\tfsmonitor = touch pwned\n", "overwrite": True}
    )
    check(result.is_error is True, f"a write through a link into .git was not refused: {result}")
    check("is a link to `.git/config`" in result.content[0].text, f"refusal: {result.content[0].text}")
    check(len(ASKED) == asked, "the user was not asked about a write into .git")
    with open(os.path.join(root, ".git", "config")) as config:
        check(config.read() == "[core]\n", ".git/config is unchanged")


async def over_stdio(toolwright: str, root: str) -> None:
    params = StdioServerParameters(command=toolwright, args=["serve", "--root", root])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await exercise(session, root, "stdio")
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, elicitation_callback=approve) as session:
            await session.initialize()
            await approved_write(session.call_tool, root, "stdio")
    await today(params, root, "stdio")
    print("stdio: OK")


async def today(target, root: str, label: str) -> None:
    """The SDK's `Client` in its default mode (MCP 2026-07-28, multi round-trip requests)."""
    async with Client(target) as client:
        check(client.protocol_version == "2026-07-28", f"{label}: protocol {client.protocol_version}")
        name = f"unasked-{label}.txt"
        result = await client.call_tool("write_file", {"path": name, "content": "x"})
        check(result.is_error is True, f"{label}: a client that cannot approve is refused: {result}")
        check("cannot ask you to approve" in result.content[0].text, f"denial: {result.content[0].text}")
        check(not os.path.exists(os.path.join(root, name)), "the dangerous tool did not run")
    asked = len(ASKED)
    async with Client(target, elicitation_callback=approve) as client:
        check(client.protocol_version == "2026-07-28", f"{label}: protocol {client.protocol_version}")
        await approved_write(client.call_tool, root, f"{label}-2026")
    check(len(ASKED) - asked == 3, f"{label}: the user was asked {len(ASKED) - asked} times, not 3")


async def over_http(toolwright: str, root: str) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [toolwright, "serve", "--http", f"127.0.0.1:{port}", "--root", root],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = server.stderr.readline()
        check(f"http://127.0.0.1:{port}/mcp" in line, f"server did not start: {line}")
        async with streamable_http_client(f"http://127.0.0.1:{port}/mcp", terminate_on_close=False) as (read, write):
            async with ClientSession(read, write) as session:
                await exercise(session, root, "http")
        async with streamable_http_client(f"http://127.0.0.1:{port}/mcp", terminate_on_close=False) as (read, write):
            async with ClientSession(read, write, elicitation_callback=approve) as session:
                await session.initialize()
                await approved_write(session.call_tool, root, "http")
        await today(f"http://127.0.0.1:{port}/mcp", root, "http")
    finally:
        server.terminate()
        server.wait(timeout=10)
    print("streamable HTTP: OK")


def main() -> None:
    toolwright = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory() as root:
        with open(os.path.join(root, "hello.txt"), "w") as hello:
            hello.write("hello from python\n")
        started = time.monotonic()
        asyncio.run(over_stdio(toolwright, root))
        asyncio.run(over_http(toolwright, root))
        print(f"python MCP interop passed in {time.monotonic() - started:.1f}s")


if __name__ == "__main__":
    main()
