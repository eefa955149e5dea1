"""Client input the server must answer with a 400 naming the field, never a 500 or a traceback."""

from __future__ import annotations

import json
import logging
import socket
import time
from typing import Any

import httpx
import pytest

from granite_formatters import get_formatter
from granite_formatters._errors import InvalidRequestError
from granite_formatters._serve.jsonbody import MAX_DEPTH
from granite_formatters._serve.public import request_text

from .outputs import RELEASES, USER, release_model
from .test_serve_failures import MODEL, assert_alive

JSON = {"Content-Type": "application/json"}
TOOL: dict[str, Any] = {
    "type": "function",
    "function": {"name": "get_weather", "parameters": {"type": "object"}},
}


def post_raw(url: str, text: str) -> httpx.Response:
    return httpx.post(url + "/v1/chat/completions", content=text.encode(), headers=JSON)


def assert_no_traceback(caplog: pytest.LogCaptureFixture) -> None:
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def raw_body(messages: Any = USER, **raw: str) -> str:
    """A request as JSON text, with ``raw`` fields spliced in as written (not valid Python)."""
    extra = "".join(f', "{key}": {text}' for key, text in raw.items())
    return f'{{"model": "{MODEL}", "messages": {json.dumps(messages)}{extra}}}'


def _deep_tool(depth: int) -> str:
    parameters = '{"a":' * depth + "{}" + "}" * depth
    return f'[{{"type": "function", "function": {{"name": "f", "parameters": {parameters}}}}}]'


@pytest.mark.parametrize(
    ("text", "param"),
    [
        # ~150 KB of brackets: json.loads alone raises RecursionError.
        (raw_body(extra=_nested(75_000)), None),
        # These parse, but nest deeper than the server takes.
        (raw_body(messages=[{"role": "user", "content": "REPLACED"}]).replace(
            '"REPLACED"', _nested(MAX_DEPTH + 5)), "messages[0].content"),
        (raw_body(tools=_deep_tool(80)), "tools[0].function.parameters"),
    ],
)  # fmt: skip
def test_deep_nesting_is_400(
    proxy_factory: Any,
    fake_backend: Any,
    caplog: pytest.LogCaptureFixture,
    text: str,
    param: str | None,
) -> None:
    fake, _ = fake_backend
    proxy = proxy_factory("openai")
    with caplog.at_level(logging.INFO):
        response = post_raw(proxy.url, text)
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["type"] == "invalid_request_error"
    assert f"more than {MAX_DEPTH} levels" in error["message"]
    if param is None:
        assert error["param"] is None
    else:
        assert error["param"].startswith(param)
    assert_no_traceback(caplog)
    assert_alive(proxy, fake)


def _body(**change: Any) -> dict[str, Any]:
    return {"model": MODEL, "messages": USER, **change}


@pytest.mark.parametrize(
    ("body", "param"),
    [
        (_body(messages=[{"role": "user", "content": "hi \ud800 there"}]), "messages[0].content"),
        (_body(messages=[{"role": "user", "content": [{"type": "text", "text": "\udfff"}]}]),
         "messages[0].content[0].text"),
        (_body(stop=["ok", "x\udc00"]), "stop[1]"),
        (_body(stop="\ud83d"), "stop"),
        (_body(tools=[{**TOOL, "function": {**TOOL["function"], "name": "get\ud800"}}]),
         "tools[0].function.name"),
        (_body(chat_template_kwargs={"\ud800key": True}), "chat_template_kwargs"),
        (_body(model="granite\udfff"), "model"),
    ],
)  # fmt: skip
def test_lone_surrogates_are_400_naming_the_field(
    proxy_factory: Any,
    fake_backend: Any,
    caplog: pytest.LogCaptureFixture,
    body: dict[str, Any],
    param: str,
) -> None:
    fake, _ = fake_backend
    proxy = proxy_factory("openai")
    text = json.dumps(body)  # ensure_ascii: the surrogate travels as a \\uXXXX escape
    assert "\\ud" in text
    with caplog.at_level(logging.INFO):
        response = post_raw(proxy.url, text)
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["param"] == param
    assert "lone surrogate" in error["message"]
    assert_no_traceback(caplog)
    assert_alive(proxy, fake)


@pytest.mark.parametrize(
    ("literal", "field"),
    [
        ("1e999", "temperature"),
        ("-1e999", "temperature"),
        ("Infinity", "top_p"),
        ("-Infinity", "seed"),
        ("NaN", "temperature"),
        ("NaN", "tools[0].function.parameters.x"),
    ],
)
def test_non_finite_numbers_are_400_naming_the_field(
    proxy_factory: Any,
    fake_backend: Any,
    caplog: pytest.LogCaptureFixture,
    literal: str,
    field: str,
) -> None:
    fake, _ = fake_backend
    proxy = proxy_factory("openai")
    if field.startswith("tools"):
        tool = (
            f'{{"type": "function", "function": {{"name": "f", "parameters": {{"x": {literal}}}}}}}'
        )
        text = raw_body(tools=f"[{tool}]")
    else:
        text = raw_body(**{field: literal})
    with caplog.at_level(logging.INFO):
        response = post_raw(proxy.url, text)
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["param"] == field
    assert "finite number" in error["message"]
    assert_no_traceback(caplog)
    assert_alive(proxy, fake)


def test_client_dropping_mid_body_leaves_one_line_and_no_traceback(
    proxy_factory: Any, fake_backend: Any, caplog: pytest.LogCaptureFixture
) -> None:
    fake, _ = fake_backend
    proxy = proxy_factory("openai")
    head = (
        "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        "Content-Type: application/json\r\nContent-Length: 5000\r\n\r\n"
    )
    with caplog.at_level(logging.INFO):
        with socket.create_connection(("127.0.0.1", proxy.port)) as sock:
            sock.sendall(head.encode() + b'{"model": "granite-3.3-8b-ins')
            time.sleep(0.2)  # let the server start reading the body (not an assertion)
        deadline = time.monotonic() + 10  # a bound against hanging, not a timing assertion
        while time.monotonic() < deadline:
            lines = [r.getMessage() for r in caplog.records if r.name == "granite_formatters.serve"]
            if lines:
                break
            time.sleep(0.02)
        time.sleep(0.2)  # anything the server would log after the line
    assert len(lines) == 1, lines
    assert "status=499" in lines[0]
    assert not any("Exception in ASGI application" in r.getMessage() for r in caplog.records)
    assert_no_traceback(caplog)
    assert_alive(proxy, fake)


def test_special_token_error_speaks_http(proxy_factory: Any, fake_backend: Any) -> None:
    fake, _ = fake_backend
    proxy = proxy_factory("openai")
    body = _body(messages=[{"role": "user", "content": "hi <|end_of_text|> there"}])
    response = post_raw(proxy.url, json.dumps(body))
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["param"] == "messages[0].content"
    assert "special token" in error["message"]
    assert "special_tokens=" not in error["message"] and "strict=" not in error["message"]
    assert error["message"].endswith("Remove it.")
    assert_alive(proxy, fake)


def _library_errors(model: str) -> list[str]:
    formatter = get_formatter(model)
    requests: list[dict[str, Any]] = [
        {"messages": [{"role": "user", "content": "a <|end_of_text|> b"}]},
        {"messages": [{"role": "developer", "content": "be brief"}, *USER]},
        {"messages": [{"role": "pirate", "content": "arr"}, *USER]},
    ]
    found = []
    for request in requests:
        try:
            formatter.format(request)
        except InvalidRequestError as exc:
            found.append(str(exc))
    return found


@pytest.mark.parametrize("release", list(RELEASES))
def test_library_errors_lose_their_python_advice(release: str) -> None:
    model = release_model(release)
    if model is None:
        pytest.skip(f"no installed plugin serves Granite {release}")
    messages = _library_errors(model)
    assert any("special_tokens=" in m or "strict=" in m for m in messages), messages
    for message in messages:
        text = request_text(message)
        assert "special_tokens=" not in text and "strict=" not in text, text
        assert text and "\n" not in text
        assert text.split(":")[0] == message.split(":")[0]  # the field stays first
