"""Interop test: the official Python MCP SDK (`mcp` on PyPI) against the conformance example
server (tool-mcp/examples/conformance/), for MCP's other primitives: prompts, resources and
completions, written with `#[prompt]` and `#[resource]` and served by toolwright-mcp.

Usage: python primitives.py PATH/TO/examples/conformance

Over streamable HTTP, in both eras (a `ClientSession` after `initialize`, MCP 2025-11-25; the
SDK's `Client` in its default mode, MCP 2026-07-28), checks that the Python client lists the
resources and the resource templates, reads a text resource, a binary one and one from a
template (the variable substituted), gets a prompt without arguments and one with arguments
(both substituted), is refused a prompt without its required argument (-32602 naming it), is
told a resource does not exist (-32002, or -32602 in 2026-07-28, SEP-2164), a URI that tries
to leave its template (`..`, an encoded `/`) included, and completes a prompt's argument.
"""

import asyncio
import base64
import os
import subprocess
import sys

from mcp import ClientSession, MCPError, types
from mcp.client.client import Client as SdkClient
from mcp.client.streamable_http import streamable_http_client


def check(condition, message):
    if not condition:
        raise AssertionError(message)


RED_PIXEL_PNG_PREFIX = b"\x89PNG\r\n\x1a\n"


async def exercise(session, era: str) -> None:
    listed = await session.list_resources()
    uris = sorted(str(resource.uri) for resource in listed.resources)
    check(
        uris == ["test://static-binary", "test://static-text", "test://watched-resource"],
        f"{era}: resources/list: {uris}",
    )
    templates = await session.list_resource_templates()
    check(
        [t.uri_template for t in templates.resource_templates] == ["test://template/{id}/data"],
        f"{era}: resources/templates/list: {templates}",
    )

    text = await session.read_resource("test://static-text")
    [content] = text.contents
    check(
        content.text == "This is the content of the static text resource."
        and content.mime_type == "text/plain",
        f"{era}: the text resource: {text}",
    )
    binary = await session.read_resource("test://static-binary")
    [content] = binary.contents
    check(
        base64.b64decode(content.blob).startswith(RED_PIXEL_PNG_PREFIX)
        and content.mime_type == "image/png",
        f"{era}: the binary resource: {binary}",
    )
    templated = await session.read_resource("test://template/123/data")
    [content] = templated.contents
    check('"id":"123"' in content.text, f"{era}: the template's variable: {templated}")

    # Not served, or trying to leave the template's one segment: not found, by SEP-2164's code.
    for uri in ["test://nothing-here", "test://template/../data", "test://template/a%2Fb/data"]:
        try:
            await session.read_resource(uri)
            check(False, f"{era}: {uri} was read")
        except MCPError as error:
            check(error.code in (-32002, -32602), f"{era}: {uri}: {error.code} {error}")

    prompts = await session.list_prompts()
    names = {prompt.name for prompt in prompts.prompts}
    check(
        {"test_simple_prompt", "test_prompt_with_arguments"} <= names,
        f"{era}: prompts/list: {names}",
    )
    with_arguments = next(p for p in prompts.prompts if p.name == "test_prompt_with_arguments")
    check(
        [(a.name, a.required) for a in with_arguments.arguments] == [("arg1", True), ("arg2", True)],
        f"{era}: the prompt's arguments: {with_arguments}",
    )
    simple = await session.get_prompt("test_simple_prompt")
    check(
        simple.messages[0].content.text == "This is a simple prompt for testing.",
        f"{era}: the simple prompt: {simple}",
    )
    got = await session.get_prompt(
        "test_prompt_with_arguments", {"arg1": "hello", "arg2": "world"}
    )
    check(
        got.messages[0].content.text == "Prompt with arguments: arg1='hello', arg2='world'",
        f"{era}: the prompt with arguments: {got}",
    )
    try:
        await session.get_prompt("test_prompt_with_arguments", {"arg1": "hello"})
        check(False, f"{era}: a prompt without its required argument answered")
    except MCPError as error:
        check(error.code == -32602 and "arg2" in str(error), f"{era}: {error.code} {error}")

    completed = await session.complete(
        types.PromptReference(type="ref/prompt", name="test_prompt_with_arguments"),
        {"name": "arg1", "value": "par"},
    )
    check(
        completed.completion.values == ["paris", "park", "party"],
        f"{era}: completion/complete: {completed}",
    )


async def run(server_binary: str) -> None:
    server = subprocess.Popen([server_binary, "127.0.0.1:0"], stdout=subprocess.PIPE, text=True)
    try:
        line = server.stdout.readline()
        check("http://" in line, f"server did not start: {line!r}")
        url = line.strip().split()[-1]
        async with streamable_http_client(url) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                await exercise(session, "2025-11-25")
        async with SdkClient(url) as sdk:
            check(sdk.protocol_version == "2026-07-28", f"protocol: {sdk.protocol_version}")
            await exercise(sdk.session, "2026-07-28")
    finally:
        server.terminate()
        server.wait(timeout=10)
    print("python MCP interop (resources, templates, prompts, completions; both eras): OK")


if __name__ == "__main__":
    asyncio.run(run(os.path.abspath(sys.argv[1])))
