"""Granite 4.2 reads each path of the request as its prompt does (issue 43, item 2):
``extra_body``, JSON strings and bytes, tuples and ``openai`` objects as tools, typed
requests, the top-level ``reasoning_effort``, vLLM's body flags (each failed on the
parser before the request was read once, by the renderer's readers)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from openai.types.chat import ChatCompletionFunctionTool
from openai.types.shared import FunctionDefinition

from granite_formatters import ChatCompletion, get_formatter
from granite_formatters._errors import InvalidRequestError

HI = [{"role": "user", "content": "Hi"}]
PARTIAL = [*HI, {"role": "assistant", "content": "The answer is"}]
THINKING_OFF = {"chat_template_kwargs": {"enable_thinking": False}}
SCHEMA: dict[str, object] = {"type": "object", "properties": {"count": {"type": "integer"}}}
CALL = "<tool_call>\n<function=tool_alpha>\n<parameter=count>\n7\n</parameter>\n</function>\n</tool_call>"


def _tool(shape: str) -> Any:
    if shape == "sdk-object":
        return ChatCompletionFunctionTool(
            type="function", function=FunctionDefinition(name="tool_alpha", parameters=SCHEMA)
        )
    if shape == "sdk-function":
        return FunctionDefinition(name="tool_alpha", parameters=SCHEMA)
    return {"type": "function", "function": {"name": "tool_alpha", "parameters": SCHEMA}}


def _granite42() -> Any:
    return get_formatter("granite-4.2-8b")


def _opened(formatter: Any, request: Any) -> bool:
    return bool(formatter.format(request).endswith("<think>\n"))


@pytest.mark.parametrize(
    "request_",
    [
        {"messages": HI, "extra_body": THINKING_OFF},
        json.dumps({"messages": HI, "extra_body": THINKING_OFF}),
        json.dumps({"messages": HI, **THINKING_OFF}).encode(),
        {"messages": HI, "reasoning_effort": "none"},
        {"messages": HI, "extra_body": {"reasoning_effort": "none"}},
        json.dumps({"messages": HI, "reasoning_effort": "none"}).encode(),
        {"messages": HI, "add_generation_prompt": False},
        {"messages": HI, "extra_body": {"add_generation_prompt": False}},
    ],
    ids=[
        "extra_body-kwargs",
        "json-extra_body",
        "bytes-kwargs",
        "effort-none",
        "extra_body-effort-none",
        "bytes-effort-none",
        "no-generation-prompt",
        "extra_body-no-generation-prompt",
    ],
)
def test_a_prompt_that_opens_no_reasoning_gives_content(request_: Any) -> None:
    formatter = _granite42()
    assert not _opened(formatter, request_)
    message = formatter.parse("Hello\n" + CALL, request_)
    assert (message.content, message.reasoning_content) == ("Hello", None)
    assert [call.name for call in message.tool_calls] == ["tool_alpha"]
    assert not any("reasoning" in note for note in message.notes)


def test_the_stream_parser_reads_extra_body_too() -> None:
    formatter = _granite42()
    parser = formatter.stream_parser({"messages": HI, "extra_body": THINKING_OFF})
    for chunk in ("Hel", "lo"):
        parser.feed(chunk)
    parser.close()
    assert parser.message is not None
    assert (parser.message.content, parser.message.reasoning_content) == ("Hello", None)


@pytest.mark.parametrize("form", ["list", "tuple", "sdk-object", "sdk-function", "json", "bytes"])
def test_the_tools_prompt_lists_type_the_values(form: str) -> None:
    formatter = _granite42()
    tools: Any = [_tool(form)]
    if form == "tuple":
        tools = tuple(tools)
    request: Any = {"messages": HI, "tools": tools, **THINKING_OFF}
    if form in ("json", "bytes"):
        request = json.dumps({"messages": HI, "tools": tools, "extra_body": THINKING_OFF})
        request = request.encode() if form == "bytes" else request
    assert '"name": "tool_alpha"' in formatter.format(request)
    message = formatter.parse(CALL, request)
    assert [(call.name, call.arguments) for call in message.tool_calls] == [
        ("tool_alpha", {"count": 7})
    ]
    assert message.notes == []


def test_a_typed_request_is_read_as_the_renderer_reads_it() -> None:
    formatter = _granite42()
    typed = ChatCompletion.model_validate(
        {"messages": HI, "tools": (_tool("sdk-object"),), **THINKING_OFF}
    )
    assert not _opened(formatter, typed)
    message = formatter.parse("Hi.\n" + CALL, typed)
    assert message.content == "Hi."
    assert message.tool_calls[0].arguments == {"count": 7}


@pytest.mark.parametrize(
    "request_",
    [
        {"messages": PARTIAL, "continue_final_message": True},
        {"messages": PARTIAL, "extra_body": {"continue_final_message": True}},
        json.dumps({"messages": PARTIAL, "continue_final_message": True}),
        json.dumps({"messages": PARTIAL, "continue_final_message": True}).encode(),
    ],
    ids=["top-level", "extra_body", "json", "bytes"],
)
def test_a_continued_final_message_is_continued_as_content(request_: Any) -> None:
    formatter = _granite42()
    assert formatter.format(request_).endswith("<think></think>The answer is")
    message = formatter.parse(" 42.", request_)
    assert (message.content, message.reasoning_content) == ("42.", None)
    assert message.notes == []
    # (no reasoning phase: what looks like reasoning is the continued content)
    message = formatter.parse(" 42 </think> done", request_)
    assert (message.content, message.reasoning_content) == ("42 </think> done", None)


def test_a_request_format_refuses_is_parsed_with_defaults() -> None:
    formatter = _granite42()
    for request in (
        {"messages": HI, "chat_template_kwargs": {"enable_thinking": "no"}},
        {"messages": HI, "continue_final_message": "yes"},
        {"messages": HI, "unknown_key": 1},
        "not json",
        b"\xff",
        {"tools": [object()]},
    ):
        with pytest.raises(InvalidRequestError):
            formatter.format(request)
        message = formatter.parse("Plan.</think>Done", request)
        assert (message.reasoning_content, message.content) == ("Plan.", "Done")


def test_a_request_without_messages_still_gives_its_tools_and_options() -> None:
    formatter = _granite42()
    request = {"tools": (_tool("sdk-object"),), "extra_body": THINKING_OFF}
    message = formatter.parse(CALL, request)
    assert message.tool_calls[0].arguments == {"count": 7}
    assert message.reasoning_content is None


def test_the_cli_parse_reads_extra_body(tmp_path: Path) -> None:
    request = tmp_path / "request.json"
    request.write_text(json.dumps({"messages": HI, "extra_body": THINKING_OFF}))
    output = tmp_path / "output.txt"
    output.write_text("Hello")
    command = [sys.executable, "-m", "granite_formatters", "parse", "-m", "granite-4.2-8b"]
    done = subprocess.run(
        [*command, "--request", str(request), str(output)],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    message = json.loads(done.stdout)
    assert (message["content"], message.get("reasoning_content")) == ("Hello", None)
