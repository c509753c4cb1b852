# toolwright code mode: the program's side of the channel. Each offered tool is a function
# here; a call writes one JSON-RPC request line on the channel (the descriptor the program
# got as its standard input) and reads one answer line. The executor's side checks every
# request: this file is a convenience, not a boundary.
import ast as _tw_ast
import builtins as _tw_builtins
import json as _tw_json
import os as _tw_os
import sys as _tw_sys
import types as _tw_types
from typing import Any, Optional

# The channel moves off descriptor 0, so `input()` reads nothing instead of the protocol.
_tw_fd = _tw_os.dup(0)
try:
    _tw_null = _tw_os.open(_tw_os.devnull, _tw_os.O_RDONLY)
    _tw_os.dup2(_tw_null, 0)
    _tw_os.close(_tw_null)
except OSError:
    _tw_os.close(0)
_tw_buffer = b""
_tw_next_id = 0
_TW_UNSET = object()


class ToolCallError(Exception):
    """A tool call that failed or was refused; the message says why."""


def _tw_send(message):
    data = (_tw_json.dumps(message, ensure_ascii=True, default=repr) + "\n").encode()
    while data:
        data = data[_tw_os.write(_tw_fd, data):]


def _tw_receive():
    global _tw_buffer
    while b"\n" not in _tw_buffer:
        chunk = _tw_os.read(_tw_fd, 65536)
        if not chunk:
            raise ToolCallError("the channel to the executor is closed")
        _tw_buffer += chunk
    line, _, _tw_buffer = _tw_buffer.partition(b"\n")
    return _tw_json.loads(line)


def _tw_call(name, arguments):
    global _tw_next_id
    _tw_next_id += 1
    arguments = {k: v for k, v in arguments.items() if v is not _TW_UNSET}
    _tw_send({"jsonrpc": "2.0", "id": _tw_next_id, "method": "tools/call",
              "params": {"name": name, "arguments": arguments}})
    answer = _tw_receive()
    # A request refused unread (too long) is answered with no id.
    if answer.get("id") not in (_tw_next_id, None):
        raise ToolCallError("the executor answered another request")
    if "error" in answer or answer.get("id") is None:
        raise ToolCallError(answer.get("error", {}).get("message", "refused"))
    result = answer.get("result", {})
    if result.get("isError"):
        raise ToolCallError(result.get("error") or result.get("content") or "the tool failed")
    if result.get("structuredContent") is not None:
        return result["structuredContent"]
    # A tool that answers with JSON answers with data; other text stays text.
    content = result.get("content")
    try:
        return _tw_json.loads(content)
    except (TypeError, ValueError):
        return content


def call_tool(name, arguments=None):
    """Calls the offered tool `name` (its real name) with `arguments` (a dict)."""
    return _tw_call(name, dict(arguments or {}))


tools = _tw_types.SimpleNamespace()
_tw_globals = {"__name__": "__main__", "__builtins__": _tw_builtins, "tools": tools,
               "call_tool": call_tool, "ToolCallError": ToolCallError,
               "Any": Any, "Optional": Optional}


def _tw_offer(name, function):
    setattr(tools, name, function)
    # A tool named like a builtin (`print`) is only `tools.print`.
    if not hasattr(_tw_builtins, name):
        _tw_globals[name] = function


def _tw_run(source):
    tree = _tw_ast.parse(source, "<program>")
    last = None
    # A program that ends with an expression returns its value, as a notebook cell does.
    if tree.body and isinstance(tree.body[-1], _tw_ast.Expr):
        last = _tw_ast.Expression(tree.body.pop().value)
    exec(compile(tree, "<program>", "exec"), _tw_globals)
    value = eval(compile(last, "<program>", "eval"), _tw_globals) if last is not None else None
    _tw_sys.stdout.flush()
    _tw_send({"jsonrpc": "2.0", "method": "result", "params": {"value": value}})
