#!/usr/bin/env python3
"""An MCP server over stdio (one JSON-RPC message a line, standard library only) for the
supervision tests. Arguments:

  --mute                 read everything, answer nothing (not even `initialize`)
  --log FILE             append a line for each start and each `initialize` received
  --description FILE     the `echo` tool's description is this file's text, read at each
                         `tools/list` (a test changes it between two starts)
  --gate FILE            the `wait` tool answers once this file exists

Tools: `echo` (answers its `text`), `crash` (the process exits without answering), `wait`.
"""

import json
import os
import sys
import time

args = sys.argv[1:]


def option(name):
    if name in args:
        return args[args.index(name) + 1]
    return None


log = option("--log")


def note(what):
    if log:
        with open(log, "a", encoding="utf-8") as f:
            f.write(f"{what} {os.getpid()}\n")


note("start")


def tools():
    description = "Echoes its text."
    path = option("--description")
    if path:
        with open(path, encoding="utf-8") as f:
            description = f.read().strip()
    text = {"type": "object", "properties": {"text": {"type": "string"}}}
    return [
        {"name": "echo", "description": description, "inputSchema": text},
        {"name": "crash", "description": "Exits at once.", "inputSchema": {"type": "object"}},
        {"name": "wait", "description": "Answers once the gate opens.", "inputSchema": {"type": "object"}},
    ]


def call(name, arguments):
    if name == "echo":
        return arguments.get("text", "")
    if name == "crash":
        sys.stdout.flush()
        os._exit(3)
    if name == "wait":
        gate = option("--gate")
        while gate and not os.path.exists(gate):
            time.sleep(0.01)
        return "opened"
    raise ValueError(f"no tool {name}")


def answer(message):
    method = message.get("method")
    if method == "initialize":
        note("initialize")
        return {
            "protocolVersion": message["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "lifecycle", "version": "1.0.0"},
        }
    if method == "tools/list":
        return {"tools": tools()}
    if method == "tools/call":
        params = message["params"]
        text = call(params["name"], params.get("arguments") or {})
        return {"content": [{"type": "text", "text": text}], "isError": False}
    if method == "ping":
        return {}
    return None


for line in sys.stdin:
    try:
        message = json.loads(line)
    except ValueError:
        continue
    if "--mute" in args:
        if message.get("method") == "initialize":
            note("initialize")
        continue
    if "id" not in message or "method" not in message:
        continue
    result = answer(message)
    if result is None:
        reply = {"jsonrpc": "2.0", "id": message["id"],
                 "error": {"code": -32601, "message": "method not found"}}
    else:
        reply = {"jsonrpc": "2.0", "id": message["id"], "result": result}
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()
