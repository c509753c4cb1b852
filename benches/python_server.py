"""The official Python MCP SDK's server for `serve_http.sh`: `MCPServer` (the SDK's high-level
server, `FastMCP` before mcp 2) with one tool, `calculate`, equivalent to toolwright's: it
evaluates an arithmetic expression (numbers, + - * / // % **, unary signs, parentheses) by
walking its `ast`, never with `eval`.

Usage:
    python python_server.py http HOST:PORT [--json-response]
        streamable HTTP at http://HOST:PORT/mcp (PORT 0: one the OS picks); prints
        `listening on http://HOST:PORT/mcp` with the real port once it serves. With
        --json-response it answers with JSON instead of event streams.
    python python_server.py stdio
        MCP over stdin/stdout.
"""

import ast
import operator
import socket
import sys

from mcp.server.mcpserver import MCPServer

OPERATORS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
UNARY = {ast.UAdd: operator.pos, ast.USub: operator.neg}


def evaluate(node: ast.AST) -> float:
    if isinstance(node, ast.Expression):
        return evaluate(node.body)
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value
    if isinstance(node, ast.BinOp) and type(node.op) in OPERATORS:
        left, right = evaluate(node.left), evaluate(node.right)
        if isinstance(node.op, ast.Pow) and abs(right) > 1000:
            raise ValueError("exponent too large")
        return OPERATORS[type(node.op)](left, right)
    if isinstance(node, ast.UnaryOp) and type(node.op) in UNARY:
        return UNARY[type(node.op)](evaluate(node.operand))
    raise ValueError(f"unsupported expression: {ast.dump(node)}")


# WARNING, not the default INFO: no log line per session (toolwright logs none either).
server = MCPServer("python-bench", log_level="WARNING")


@server.tool()
def calculate(expression: str) -> str:
    """Evaluate an arithmetic expression."""
    try:
        value = evaluate(ast.parse(expression, mode="eval"))
    except (SyntaxError, ValueError, ArithmeticError) as error:
        return f"cannot evaluate {expression!r}: {error}"
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return str(value)


def serve_http(address: str, json_response: bool) -> None:
    import uvicorn

    host, _, port = address.rpartition(":")
    # IPPROTO_TCP, not the default 0: asyncio sets TCP_NODELAY only on connections whose
    # socket says TCP, as it does when uvicorn binds (`MCPServer.run`); without it every
    # keep-alive call waits about 40 ms (Nagle's algorithm and delayed ACKs).
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, int(port)))
    sock.listen(1024)
    host, port = sock.getsockname()[:2]
    app = server.streamable_http_app(json_response=json_response, host=host)
    # No access log: one line per request would be most of the work.
    config = uvicorn.Config(app, log_level="warning", access_log=False)

    class Server(uvicorn.Server):
        async def startup(self, sockets=None) -> None:
            await super().startup(sockets)
            print(f"listening on http://{host}:{port}/mcp", flush=True)

    Server(config).run(sockets=[sock])


def main() -> None:
    args = sys.argv[1:]
    if args[:1] == ["stdio"]:
        server.run("stdio")
    elif args[:1] == ["http"] and len(args) >= 2:
        serve_http(args[1], "--json-response" in args)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
