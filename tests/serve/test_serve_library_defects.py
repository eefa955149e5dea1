"""The library defects that issue 39 met through ``granite-format serve``, seen from a client.

Each was a parser defect (fixed in the parser, tested there too); these tests hold the
serve side: the answer a client gets, streamed and not, and a log without tracebacks.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from granite_formatters import get_formatter

from .conftest import proxy_for
from .servers import FakeBackend, Script, ServerThread
from .test_serve_answers import client_for, stream_message

pytest.importorskip(
    "granite_formatters_granite42", reason="the Granite 4.2 plugin is not installed"
)

MODEL = "granite-4.2-8b"
COUNT_TOOL = {
    "type": "function",
    "function": {
        "name": "count",
        "description": "Count up to n.",
        "parameters": {
            "type": "object",
            "properties": {"n": {"type": "integer"}},
            "required": ["n"],
        },
    },
}


@pytest.fixture(scope="module")
def large() -> Iterator[tuple[FakeBackend, ServerThread]]:
    """A fake vLLM with a context of a million tokens, and serve in front of it."""
    fake = FakeBackend(max_model_len=1_000_000)
    backend = ServerThread(fake.app)
    proxy = proxy_for(backend, "openai")
    yield fake, proxy
    proxy.stop()
    backend.stop()


def xml_call(name: str, **values: str) -> str:
    parameters = "".join(
        f"<parameter={key}>\n{value}\n</parameter>\n" for key, value in values.items()
    )
    return f"<tool_call>\n<function={name}>\n{parameters}</function>\n</tool_call>"


def tracebacks(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        record.getMessage()
        for record in caplog.records
        if record.exc_info is not None or record.levelno >= logging.ERROR
    ]


def joined_calls(message: dict[str, Any]) -> list[tuple[str, str]]:
    """A streamed message's calls, their argument fragments joined."""
    calls: list[tuple[str, str]] = []
    for call in message.get("tool_calls", []):
        function = call.get("function", {})
        if "name" in function:
            calls.append((function["name"], function.get("arguments", "")))
        else:
            name, arguments = calls[-1]
            calls[-1] = (name, arguments + function.get("arguments", ""))
    return calls


def ask(port: int, stream: bool, **kwargs: Any) -> tuple[str | None, list[tuple[str, str]]]:
    """The finish reason and the calls (name, arguments) of an answer through the real
    openai client, streamed or not."""
    client = client_for(port)
    if stream:
        with client.chat.completions.create(**kwargs, stream=True) as chunks:
            message, finish, _usage = stream_message(chunks)
        return finish, joined_calls(message)
    choice = client.chat.completions.create(**kwargs).model_dump()["choices"][0]
    calls = choice["message"]["tool_calls"] or []
    return choice["finish_reason"], [
        (call["function"]["name"], call["function"]["arguments"]) for call in calls
    ]


@pytest.mark.parametrize("stream", [False, True])
def test_an_integer_longer_than_python_reads_is_an_answer_not_a_500(
    large: Any, caplog: pytest.LogCaptureFixture, stream: bool
) -> None:
    """An ``integer`` parameter of 5,000 digits (Python's int() refuses more than 4,300):
    a 200 whose call keeps the digits as text, the same streamed, and no traceback (the
    issue saw a 500, a cut stream and four tracebacks)."""
    fake, proxy = large
    digits = "7" * 5000
    messages = [{"role": "user", "content": f"Count to a big number ({stream})."}]
    request = {"messages": messages, "tools": [COUNT_TOOL]}
    prompt = get_formatter(MODEL).format(request)
    fake.script(prompt, Script("Counting.</think>\n" + xml_call("count", n=digits), cut="chars"))
    with caplog.at_level(logging.INFO):
        finish, calls = ask(proxy.port, stream, model=MODEL, messages=messages, tools=[COUNT_TOOL])
    assert finish == "tool_calls"
    assert [(name, json.loads(arguments)) for name, arguments in calls] == [
        ("count", {"n": digits})
    ]
    assert tracebacks(caplog) == []


@pytest.mark.parametrize("stream", [False, True])
def test_thousands_of_tools_and_calls_read_the_schemas_once(
    large: Any, monkeypatch: pytest.MonkeyPatch, stream: bool
) -> None:
    """3,000 tools and 3,000 returned calls (15 s in the issue): the tools' schema map is
    built once per answer, so the time grows with tools plus calls, not their product."""
    from granite_formatters.syntax import _xml_functions as xml_functions

    fake, proxy = large
    built: list[int] = []
    original = xml_functions._properties

    def counted(tools: Any) -> Any:
        built.append(len(tools or ()))
        return original(tools)

    monkeypatch.setattr(xml_functions, "_properties", counted)
    tools = [
        {
            "type": "function",
            "function": {
                "name": f"tool_{i}",
                "parameters": {"type": "object", "properties": {"n": {"type": "integer"}}},
            },
        }
        for i in range(3000)
    ]
    messages = [{"role": "user", "content": f"Call every tool ({stream})."}]
    prompt = get_formatter(MODEL).format({"messages": messages, "tools": tools})
    output = "Calling.</think>\n" + "\n".join(xml_call(f"tool_{i}", n=str(i)) for i in range(3000))
    fake.script(prompt, Script(output, cut="pieces"))
    _finish, calls = ask(proxy.port, stream, model=MODEL, messages=messages, tools=tools)
    assert [(name, json.loads(arguments)) for name, arguments in calls] == [
        (f"tool_{i}", {"n": i}) for i in range(3000)
    ]
    assert built == [3000]


@pytest.mark.parametrize("stream", [False, True])
def test_a_literal_extra_body_means_the_same_to_the_prompt_and_the_answer(
    proxy_factory: Any, fake_backend: Any, stream: bool
) -> None:
    """A body that holds ``extra_body.chat_template_kwargs`` itself (a client that does not
    merge it, as the openai SDK does): the prompt is rendered with thinking off, and the
    answer is read as content, not as reasoning (the issue saw the whole answer, tool call
    included, as reasoning)."""
    fake, _ = fake_backend
    messages = [{"role": "user", "content": f"Weather in Paris? ({stream})"}]
    options = {"chat_template_kwargs": {"enable_thinking": False}}
    output = "Let me check.\n" + xml_call("count", n="3")
    proxy = proxy_factory("openai")
    body = {
        "model": MODEL,
        "messages": messages,
        "tools": [COUNT_TOOL],
        "extra_body": options,
        "stream": stream,
    }
    prompt = get_formatter(MODEL).format({**body, "stream": False})
    assert prompt != get_formatter(MODEL).format({**body, "extra_body": {}, "stream": False})
    fake.script(prompt, Script(output, cut="chars"))
    with httpx.Client(base_url=f"http://127.0.0.1:{proxy.port}/v1", timeout=30) as client:
        if stream:
            events = []
            with client.stream("POST", "/chat/completions", json=body) as response:
                assert response.status_code == 200
                for line in response.iter_lines():
                    if line.startswith("data: ") and line != "data: [DONE]":
                        events.append(json.loads(line[6:]))
            content = "".join(
                e["choices"][0]["delta"].get("content") or "" for e in events if e["choices"]
            )
            reasoning = "".join(
                e["choices"][0]["delta"].get("reasoning_content") or ""
                for e in events
                if e["choices"]
            )
            names = [
                call["function"]["name"]
                for e in events
                if e["choices"]
                for call in e["choices"][0]["delta"].get("tool_calls") or []
                if "name" in call.get("function", {})
            ]
        else:
            response = client.post("/chat/completions", json=body)
            assert response.status_code == 200
            message = response.json()["choices"][0]["message"]
            content = message["content"] or ""
            reasoning = message.get("reasoning_content") or ""
            names = [call["function"]["name"] for call in message.get("tool_calls") or []]
    assert fake.last_request(prompt)["prompt"] == prompt
    assert (content, reasoning, names) == ("Let me check.", "", ["count"])
