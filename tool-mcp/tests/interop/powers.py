"""Interop test: the official Python MCP SDK (`mcp` on PyPI) against the conformance example
server (tool-mcp/examples/conformance/), for what a tool gives and asks beyond text.

Usage: python powers.py PATH/TO/examples/conformance

Over streamable HTTP, checks that the Python client reads every content block a tool
returns (text, image, audio, embedded resource, several in one result), receives the log
messages a tool sends at the level it asked for (and none below it), answers a tool's
sampling request, and answers its elicitation requests (a flat form, defaults, every enum
form of MCP 2025-11-25), and that declining an elicitation reaches the tool. Then the same
questions with the SDK's `Client` in its default mode (MCP 2026-07-28): the server answers
the call with an `InputRequiredResult`, the client answers and repeats the call, and the
tool, run again, finds its answer. Last, a task (the tasks extension, SEP-2663): the SDK
has no tasks extension of its own, but resolves an extension's result shapes through the
resolver of the `ClientExtension` that claims them; with `TasksExtension` below, a call of
a task tool answers with a task, which the resolver polls with `tasks/get` until it is
`completed` and whose inlined result `Client.call_tool` returns.
"""

import asyncio
import base64
import json
import os
import subprocess
import sys
from typing import Any, Literal

from mcp import ClientSession, MCPError, types
from mcp.client.client import Client as SdkClient
from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim
from mcp.client.streamable_http import streamable_http_client
from pydantic import Field


def check(condition, message):
    if not condition:
        raise AssertionError(message)


class Client:
    """The callbacks of one session, recording what the server asked."""

    def __init__(self):
        self.logs = []
        self.sampled = []
        self.elicited = []
        self.elicit_action = "accept"

    async def on_log(self, params: types.LoggingMessageNotificationParams) -> None:
        self.logs.append((params.level, params.data))

    async def on_sample(self, context, params: types.CreateMessageRequestParams):
        self.sampled.append(params)
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text="a reply from python"),
            model="python-test-model",
            stop_reason="endTurn",
        )

    async def on_elicit(self, context, params):
        self.elicited.append(params)
        if self.elicit_action != "accept":
            return types.ElicitResult(action=self.elicit_action)
        schema = params.requested_schema
        # Answer every field: its default, else its first choice, else a value of its type.
        content = {}
        for name, field in schema["properties"].items():
            if "default" in field:
                content[name] = field["default"]
            elif field.get("type") == "array":
                items = field["items"]
                first = items["enum"][0] if "enum" in items else items["anyOf"][0]["const"]
                content[name] = [first]
            elif "enum" in field:
                content[name] = field["enum"][0]
            elif "oneOf" in field:
                content[name] = field["oneOf"][0]["const"]
            else:
                content[name] = {"string": f"{name}@example.com", "integer": 7,
                                 "number": 1.5, "boolean": True}[field["type"]]
        return types.ElicitResult(action="accept", content=content)


async def eventually(what: str, done) -> None:
    """Waits for `done()` (an event), failing after a minute, far beyond need."""
    deadline = asyncio.get_running_loop().time() + 60
    while not done():
        check(asyncio.get_running_loop().time() < deadline, f"never happened: {what}")
        await asyncio.sleep(0.01)


def text_of(result) -> str:
    return "".join(block.text for block in result.content if block.type == "text")


async def exercise(session: ClientSession, client: Client) -> None:
    init = await session.initialize()
    check(init.capabilities.logging is not None, "the server declares logging")

    # Content blocks.
    result = await session.call_tool("test_image_content", {})
    check(not result.is_error, f"image: {result}")
    [image] = result.content
    check(image.type == "image" and image.mime_type == "image/png", f"image block: {image}")
    check(base64.b64decode(image.data).startswith(b"\x89PNG"), "the image's bytes are a PNG")

    result = await session.call_tool("test_audio_content", {})
    [audio] = result.content
    check(audio.type == "audio" and audio.mime_type == "audio/wav", f"audio block: {audio}")
    check(base64.b64decode(audio.data)[:4] == b"RIFF", "the audio's bytes are a WAV")

    result = await session.call_tool("test_multiple_content_types", {})
    kinds = [block.type for block in result.content]
    check(kinds == ["text", "image", "resource"], f"mixed blocks in order: {kinds}")
    resource = result.content[2].resource
    check(str(resource.uri) == "test://mixed-content-resource", f"resource uri: {resource}")
    check(json.loads(resource.text) == {"test": "data", "value": 123}, f"resource text: {resource}")

    # Logging: at `warning`, the tool's three info messages are filtered out; at `debug`,
    # all three arrive. Over streamable HTTP rmcp sends `notifications/message` on the
    # session's GET stream (not the call's), so they may arrive after the result: wait for
    # them. The GET stream keeps order: had the first call's messages been sent, they would
    # be here before the second's, so exactly three proves the filter.
    await session.set_logging_level("warning")
    result = await session.call_tool("test_tool_with_logging", {})
    check(not result.is_error, f"logging tool: {result}")
    await session.set_logging_level("debug")
    await session.call_tool("test_tool_with_logging", {})
    await eventually("three log messages", lambda: len(client.logs) >= 3)
    messages = [str(data) for _, data in client.logs]
    check(len(client.logs) == 3, f"three log messages, none below the level: {client.logs}")
    check(all(level == "info" for level, _ in client.logs), f"levels: {client.logs}")
    check("Tool execution started" in messages[0], f"first message: {messages}")

    # Sampling.
    result = await session.call_tool("test_sampling", {"prompt": "Say hi"})
    check(text_of(result) == "LLM response: a reply from python", f"sampling result: {result}")
    [asked] = client.sampled
    check(asked.max_tokens == 100, f"max tokens: {asked}")
    check(asked.messages[0].content.text == "Say hi", f"the prompt: {asked}")

    # Elicitation: a flat form from a Rust struct.
    result = await session.call_tool("test_elicitation", {"message": "Who are you?"})
    check(not result.is_error, f"elicitation: {result}")
    asked = client.elicited[-1]
    # The server says which tool asks (the user sees the question as the tool's).
    check(asked.message == "Tool `test_elicitation` asks: Who are you?", f"the question: {asked}")
    check(set(asked.requested_schema["required"]) == {"username", "email"}, f"form: {asked}")
    check("username@example.com" in text_of(result), f"the answer reached the tool: {result}")

    # Defaults and every enum form.
    result = await session.call_tool("test_elicitation_sep1034_defaults", {})
    check('"name":"John Doe"' in text_of(result), f"defaults: {result}")
    result = await session.call_tool("test_elicitation_sep1330_enums", {})
    fields = client.elicited[-1].requested_schema["properties"]
    check(fields["titledSingle"]["oneOf"][0] == {"const": "value1", "title": "First Option"},
          f"titled single: {fields['titledSingle']}")
    check(fields["titledMulti"]["items"]["anyOf"][0]["title"] == "First Choice",
          f"titled multi: {fields['titledMulti']}")
    check('"titledMulti":["value1"]' in text_of(result), f"enums answer: {result}")

    # Declining reaches the tool as an answer, not an error.
    client.elicit_action = "decline"
    result = await session.call_tool("test_elicitation", {"message": "Again?"})
    check(text_of(result) == "User response: action=decline", f"declined: {result}")


async def today(url: str) -> None:
    """The default `Client` (2026-07-28): sampling and elicitation over multi round-trip requests."""
    client = Client()
    async with SdkClient(
        url, sampling_callback=client.on_sample, elicitation_callback=client.on_elicit
    ) as sdk:
        check(sdk.protocol_version == "2026-07-28", f"protocol: {sdk.protocol_version}")
        result = await sdk.call_tool("test_sampling", {"prompt": "Say hi"})
        check(text_of(result) == "LLM response: a reply from python", f"sampling: {result}")
        check(len(client.sampled) == 1, f"sampled once: {client.sampled}")

        result = await sdk.call_tool("test_elicitation", {"message": "Who are you?"})
        check(not result.is_error, f"elicitation: {result}")
        check(client.elicited[-1].message == "Tool `test_elicitation` asks: Who are you?",
              f"the question: {client.elicited[-1]}")
        check("username@example.com" in text_of(result), f"the answer reached the tool: {result}")

        client.elicit_action = "decline"
        result = await sdk.call_tool("test_elicitation", {"message": "Again?"})
        check(text_of(result) == "User response: action=decline", f"declined: {result}")
        check(len(client.elicited) == 2, f"asked once per call: {len(client.elicited)}")


# ---- the tasks extension (io.modelcontextprotocol/tasks, SEP-2663), as a client extension

TASKS_EXTENSION = "io.modelcontextprotocol/tasks"


class CreateTaskResult(types.Result):
    """A `tools/call` answered with a task (`resultType: "task"`, the task's fields flat)."""

    result_type: Literal["task"] = Field(alias="resultType")
    task_id: str
    status: str
    poll_interval_ms: int | None = None


class GetTaskParams(types.RequestParams):
    task_id: str


class GetTaskRequest(types.Request[GetTaskParams, Literal["tasks/get"]]):
    method: Literal["tasks/get"] = "tasks/get"
    params: GetTaskParams
    name_param = "taskId"  # SEP-2663: `Mcp-Name` carries the task's id


class DetailedTask(types.Result):
    """What `tasks/get` answers: the task, with its result, error or questions."""

    result_type: str | None = None
    task_id: str
    status: str
    poll_interval_ms: int | None = None
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    input_requests: dict[str, Any] | None = None


class TasksExtension(ClientExtension):
    """Declares the tasks extension and finishes a task: polls `tasks/get` to its end."""

    identifier = TASKS_EXTENSION

    def __init__(self):
        self.created = []
        self.polled = []

    def claims(self):
        return [ResultClaim(result_type="task", model=CreateTaskResult, resolve=self.resolve)]

    async def resolve(self, task: CreateTaskResult, ctx: ClaimContext) -> types.CallToolResult:
        self.created.append(task)
        deadline = asyncio.get_running_loop().time() + 60
        while True:
            request = GetTaskRequest(params=GetTaskParams(task_id=task.task_id))
            detailed = await ctx.session.send_request(request, DetailedTask)
            self.polled.append(detailed)
            check(detailed.task_id == task.task_id, f"tasks/get answered another task: {detailed}")
            if detailed.status == "completed":
                return types.CallToolResult.model_validate(detailed.result)
            check(detailed.status == "working", f"task {task.task_id} ended {detailed.status}: {detailed}")
            check(asyncio.get_running_loop().time() < deadline, f"task never completed: {detailed}")
            await asyncio.sleep((detailed.poll_interval_ms or 100) / 1000)


async def tasks(url: str) -> None:
    """The default `Client` declaring the tasks extension: a task tool's call becomes a task."""
    extension = TasksExtension()
    async with SdkClient(url, extensions=[extension]) as sdk:
        check(sdk.protocol_version == "2026-07-28", f"protocol: {sdk.protocol_version}")
        # The server declares the extension (`server/discover`).
        declared = sdk.session.server_capabilities.extensions or {}
        check(TASKS_EXTENSION in declared, f"the server's extensions: {declared}")

        result = await sdk.call_tool("slow_compute", {"seconds": 1, "label": "python"})
        check(not result.is_error, f"task result: {result}")
        check(text_of(result) == "computed for 1 s (python)", f"the task's result: {result}")
        [created] = extension.created
        check(created.status == "working" and len(created.task_id) == 32, f"the task: {created}")
        check(extension.polled[-1].status == "completed", f"polled to its end: {extension.polled}")
        check(extension.polled[-1].result_type == "complete", f"tasks/get: {extension.polled[-1]}")

        # A tool without task support answers in the call, also to a client that polls.
        result = await sdk.call_tool("greet", {"name": "Python"})
        check(text_of(result) == "Hello, Python!", f"greet: {result}")
        check(len(extension.created) == 1, f"no task for greet: {extension.created}")

    # Without the extension, an optional task tool answers in the call, and a tool that runs
    # only as a task is refused with the extension it needs (-32021).
    async with SdkClient(url) as plain:
        result = await plain.call_tool("slow_compute", {"seconds": 0})
        check(text_of(result) == "computed for 0 s", f"in the call: {result}")
        try:
            await plain.call_tool("failing_job", {})
            check(False, "failing_job ran without the tasks extension")
        except MCPError as error:
            check(error.code == -32021, f"refused: {error.code} {error}")
            required = (error.error.data or {})["requiredCapabilities"]["extensions"]
            check(TASKS_EXTENSION in required, f"names the extension: {error.error.data}")


async def run(server_binary: str) -> None:
    server = subprocess.Popen(
        [server_binary, "127.0.0.1:0"], stdout=subprocess.PIPE, text=True
    )
    try:
        line = server.stdout.readline()
        check("http://" in line, f"server did not start: {line!r}")
        url = line.strip().split()[-1]
        client = Client()
        async with streamable_http_client(url) as (read, write):
            async with ClientSession(
                read,
                write,
                logging_callback=client.on_log,
                sampling_callback=client.on_sample,
                elicitation_callback=client.on_elicit,
            ) as session:
                await exercise(session, client)
        await today(url)
        await tasks(url)
    finally:
        server.terminate()
        server.wait(timeout=10)
    print("python MCP interop (content blocks, logging, sampling, elicitation; 2026-07-28 rounds; tasks): OK")


if __name__ == "__main__":
    asyncio.run(run(os.path.abspath(sys.argv[1])))
