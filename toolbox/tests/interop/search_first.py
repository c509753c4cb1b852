"""Interop test: the official Python MCP SDK (`mcp` on PyPI) against
`toolwright serve --discovery search` over stdio.

Usage: python search_first.py PATH/TO/toolwright

The SDK's client sees the short list (the core, then search_tools, describe_tool,
call_tool), instructions saying the list is partial, finds a tool by search, reads its
schema, calls it through call_tool and directly, and a tool that needs approval is refused
(this client cannot approve) in a message naming that tool, not call_tool.
"""

import asyncio
import json
import os
import sys
import tempfile

from mcp import ClientSession, StdioServerParameters, stdio_client


def check(condition, message):
    if not condition:
        raise AssertionError(message)


async def exercise(toolwright: str, root: str) -> None:
    params = StdioServerParameters(
        command=toolwright,
        args=["serve", "--root", root, "--discovery", "search", "--core", "read_file"],
    )
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            check("The tool list is partial" in (init.instructions or ""), f"instructions: {init.instructions}")
            names = [tool.name for tool in (await session.list_tools()).tools]
            check(names == ["read_file", "search_tools", "describe_tool", "call_tool"], f"tools: {names}")

            found = await session.call_tool("search_tools", {"query": "create a new directory"})
            check(found.is_error is False, f"search: {found}")
            hits = [hit["name"] for hit in json.loads(found.content[0].text)["tools"]]
            check("create_directory" in hits, f"search hits: {hits}")

            described = await session.call_tool("describe_tool", {"name": "create_directory"})
            schema = json.loads(described.content[0].text)["input_schema"]
            check("path" in schema["properties"], f"schema: {schema}")

            made = await session.call_tool("call_tool", {"name": "create_directory", "arguments": {"path": "made"}})
            check(made.is_error is False and os.path.isdir(os.path.join(root, "made")), f"call_tool: {made}")
            direct = await session.call_tool("create_directory", {"path": "direct"})
            check(direct.is_error is False and os.path.isdir(os.path.join(root, "direct")), f"direct: {direct}")

            refused = await session.call_tool(
                "call_tool", {"name": "write_file", "arguments": {"path": "x.txt", "content": "x"}}
            )
            text = refused.content[0].text
            check(refused.is_error is True and "`write_file` is dangerous" in text, f"refusal: {text}")
            check(not os.path.exists(os.path.join(root, "x.txt")), "write_file ran")


def main() -> None:
    toolwright = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory() as root:
        asyncio.run(exercise(toolwright, root))
    print("python MCP interop (search-first): OK")


if __name__ == "__main__":
    main()
