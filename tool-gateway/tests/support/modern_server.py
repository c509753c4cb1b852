#!/usr/bin/env python3
"""An MCP server over stdio that speaks only MCP 2026-07-28 (one JSON-RPC message a line,
standard library only), for the protocol-era tests: it answers `server/discover` and
refuses `initialize`, as a server of that revision may; every other request must carry its
own metadata (`_meta` with the protocol version and the client's capabilities), or it is
refused. Arguments:

  --log FILE    append a line for each start and each request: `start`, `discover`,
                `initialize` (refused), `list <cursor or ->`, `call <tool>`, `run ask`,
                `no-meta <method>` (refused)

Tools, listed in two pages: `echo` (answers its `text`) and `crash` (the process exits
without answering) on the first, `ask` on the second: it asks for a name in a round
(`input_required`) and runs once the repeated call carries the answer.
"""

import json
import os
import sys

args = sys.argv[1:]
log = args[args.index("--log") + 1] if "--log" in args else None
VERSION = "2026-07-28"


def note(what):
    if log:
        with open(log, "a", encoding="utf-8") as f:
            f.write(f"{what} {os.getpid()}\n")


note("start")

TEXT = {"type": "object", "properties": {"text": {"type": "string"}}}
PAGES = {
    None: ([{"name": "echo", "description": "Echoes its text.", "inputSchema": TEXT},
            {"name": "crash", "description": "Exits at once.", "inputSchema": {"type": "object"}}],
           "2"),
    "2": ([{"name": "ask", "description": "Asks for a name.", "inputSchema": {"type": "object"}}],
          None),
}


def refuse(code, text):
    return {"error": {"code": code, "message": text}}


def answer(message):
    method = message.get("method")
    params = message.get("params") or {}
    if method == "initialize":
        note("initialize")
        return refuse(-32601, "this server speaks only MCP 2026-07-28: use server/discover")
    meta = params.get("_meta") or {}
    if method != "server/discover" and (
        meta.get("io.modelcontextprotocol/protocolVersion") != VERSION
        or "io.modelcontextprotocol/clientCapabilities" not in meta
    ):
        note(f"no-meta {method}")
        return refuse(-32602, "every request carries its protocol version and capabilities")
    if method == "server/discover":
        note("discover")
        return {"result": {
            "resultType": "complete",
            "supportedVersions": [VERSION],
            "capabilities": {"tools": {}},
            "ttlMs": 0,
            "cacheScope": "public",
            "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "modern", "version": "1.0.0"}},
        }}
    if method == "tools/list":
        cursor = params.get("cursor")
        note(f"list {cursor or '-'}")
        if cursor not in PAGES:
            return refuse(-32602, "no such cursor")
        tools, after = PAGES[cursor]
        result = {"tools": tools}
        if after:
            result["nextCursor"] = after
        return {"result": result}
    if method == "tools/call":
        name = params.get("name")
        note(f"call {name}")
        arguments = params.get("arguments") or {}
        if name == "echo":
            text = arguments.get("text", "")
        elif name == "crash":
            sys.stdout.flush()
            os._exit(3)
        elif name == "ask":
            responses = params.get("inputResponses")
            if responses is None:
                return {"result": {
                    "resultType": "input_required",
                    "inputRequests": {"who": {
                        "method": "elicitation/create",
                        "params": {"mode": "form", "message": "Name?",
                                   "requestedSchema": {"type": "object",
                                                       "properties": {"name": {"type": "string"}}}},
                    }},
                    "requestState": "asked",
                }}
            note("run ask")
            who = ((responses.get("who") or {}).get("content") or {}).get("name", "?")
            text = f"asked for {who}"
        else:
            return refuse(-32602, f"no tool {name}")
        return {"result": {"content": [{"type": "text", "text": text}], "isError": False}}
    if method == "ping":
        return {"result": {}}
    return refuse(-32601, "method not found")


for line in sys.stdin:
    try:
        message = json.loads(line)
    except ValueError:
        continue
    if "id" not in message or "method" not in message:
        continue
    reply = {"jsonrpc": "2.0", "id": message["id"], **answer(message)}
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()
