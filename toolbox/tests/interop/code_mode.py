"""Interop test: the official Python MCP SDK (`mcp` on PyPI) against
`toolwright serve --code-mode` over stdio.

Usage: python code_mode.py PATH/TO/toolwright

Without --code-mode, run_code is not listed. With it, the SDK's client (handshake era, with
an elicitation handler as its user) runs a program that calls two tools and returns what it
computed; a program that calls a dangerous tool makes the user approve that tool by its
own name, after run_code; a denied call raises in the program and nothing is written; a
program that names a tool it was not offered gets `ToolCallError` from the host. A client
of MCP 2026-07-28 (multi round-trip requests) approves run_code the same way, but a
dangerous call inside the program is refused with what to do instead: that client answers
between requests, and a running program cannot wait for the next one.
"""

import asyncio
import json
import os
import sys
import tempfile

from mcp import ClientSession, StdioServerParameters, stdio_client, types
from mcp.client.client import Client


def check(condition, message):
    if not condition:
        raise AssertionError(message)


ASKED: list = []
DENY: set = set()


async def person(context, params: types.ElicitRequestParams) -> types.ElicitResult:
    """The user: approves every call, except of the tools in DENY."""
    ASKED.append(params.message)
    properties = params.requested_schema["properties"]
    if any(f"`{name}`" in params.message for name in DENY):
        return types.ElicitResult(action="decline")
    if "decision" in properties:
        return types.ElicitResult(action="accept", content={"decision": "all"})
    return types.ElicitResult(action="accept", content={"approve": True})


def payload(result):
    check(result.is_error is False, f"run_code failed: {result}")
    if result.structured_content is not None:
        return result.structured_content
    return json.loads(result.content[0].text)


READ_TWO = (
    "a = read_file(path='a.txt')\n"
    "names = list_directory(path='.')\n"
    "print('listed')\n"
    "[str(a).strip(), 'a.txt' in json.dumps(names)]\n"
)
WRITE = "write_file(path='made.txt', content='from a program')\n'written'\n"
FORGED = (
    "try:\n"
    "    call_tool('no_such_tool', {})\n"
    "    outcome = 'called'\n"
    "except ToolCallError as error:\n"
    "    outcome = 'refused: ' + str(error)\n"
    "outcome\n"
)


async def handshake_era(toolwright: str, root: str) -> None:
    plain = StdioServerParameters(command=toolwright, args=["serve", "--root", root])
    async with stdio_client(plain) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            names = [tool.name for tool in (await session.list_tools()).tools]
            check("run_code" not in names, f"run_code listed without --code-mode: {names}")

    params = StdioServerParameters(command=toolwright, args=["serve", "--root", root, "--code-mode"])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, elicitation_callback=person) as session:
            await session.initialize()
            tools = {tool.name: tool for tool in (await session.list_tools()).tools}
            check("run_code" in tools, f"run_code not listed with --code-mode: {list(tools)}")

            asked = len(ASKED)
            out = payload(await session.call_tool("run_code", {"code": "import json\n" + READ_TWO}))
            check(out["result"] == ["hello", True], f"the program's value: {out}")
            check("listed" in out["stdout"], f"the program's output: {out}")
            check(out["calls_made"] == 2, f"calls made: {out}")
            check(len(ASKED) - asked == 1 and "`run_code`" in ASKED[-1], f"asked: {ASKED[asked:]}")

            asked = len(ASKED)
            out = payload(await session.call_tool("run_code", {"code": WRITE}))
            check(out["result"] == "written", f"approved write: {out}")
            check([m for m in ASKED[asked:] if "`write_file`" in m], f"write_file asked by name: {ASKED[asked:]}")
            with open(os.path.join(root, "made.txt")) as made:
                check(made.read() == "from a program", "the file the program wrote")

            DENY.add("write_file")
            os.remove(os.path.join(root, "made.txt"))
            result = await session.call_tool("run_code", {"code": WRITE})
            text = json.dumps(result.structured_content) if result.structured_content else result.content[0].text
            check("ToolCallError" in text or result.is_error, f"a denied call must fail the program: {text}")
            check(not os.path.exists(os.path.join(root, "made.txt")), "a denied write ran")
            DENY.clear()

            out = payload(await session.call_tool("run_code", {"code": FORGED}))
            check(str(out["result"]).startswith("refused: "), f"a tool not offered: {out}")
            check(out["calls_made"] == 0, f"a refused call does not run: {out}")


async def today(toolwright: str, root: str) -> None:
    params = StdioServerParameters(command=toolwright, args=["serve", "--root", root, "--code-mode"])
    async with Client(params, elicitation_callback=person) as client:
        check(client.protocol_version == "2026-07-28", f"protocol {client.protocol_version}")
        asked = len(ASKED)
        result = await client.call_tool("run_code", {"code": "import json\n" + READ_TWO})
        out = payload(result)
        check(out["result"] == ["hello", True], f"2026-07-28: the program's value: {out}")
        check(len(ASKED) - asked >= 1, "2026-07-28: the user was asked to approve run_code")
        # A dangerous call inside the program: this client answers approvals between
        # requests, which a running program cannot wait for. Refused, saying what to do.
        result = await client.call_tool("run_code", {"code": WRITE.replace("made.txt", "today.txt")})
        text = json.dumps(result.structured_content) if result.structured_content else result.content[0].text
        check("Call `write_file` directly" in text, f"2026-07-28: a nested approval: {text}")
        check(not os.path.exists(os.path.join(root, "today.txt")), "2026-07-28: the nested write ran")


def main() -> None:
    toolwright = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory() as root:
        with open(os.path.join(root, "a.txt"), "w") as a:
            a.write("hello\n")
        asyncio.run(handshake_era(toolwright, root))
        asyncio.run(today(toolwright, root))
    print("python MCP interop (code mode): OK")


if __name__ == "__main__":
    main()
