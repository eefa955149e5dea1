"""Every failure a client or backend can cause, each followed by a check that the server still answers."""

from __future__ import annotations

import json
import socket
from typing import Any

import httpx
import openai
import pytest
from openai.types.chat import ChatCompletionMessageParam

from granite_formatters import get_formatter

from .conftest import KINDS
from .outputs import G33, PLAIN_ANSWER, USER
from .servers import Script, ServerThread, cut_text
from .test_serve_answers import client_for

MODEL = "granite-3.3-8b-instruct"
REASONING = G33[1]  # <think>...</think><response>...</response>
JSON = {"Content-Type": "application/json"}


def prompt_for(request: dict[str, Any]) -> str:
    return get_formatter(MODEL).format(request)


def assert_alive(proxy: ServerThread, fake: Any, **client_kwargs: Any) -> None:
    """The server still answers: health, and a plain chat through the backend."""
    assert httpx.get(proxy.url + "/health").json() == {"status": "ok"}
    fake.script(prompt_for({"messages": USER}), Script(PLAIN_ANSWER))
    answer = client_for(proxy.port, **client_kwargs).chat.completions.create(
        model=MODEL, messages=USER
    )
    assert answer.choices[0].message.content == PLAIN_ANSWER


def error_of(exc: openai.APIStatusError) -> dict[str, Any]:
    body = exc.response.json()
    assert set(body["error"]) == {"message", "type", "param", "code"}
    return dict(body["error"])


@pytest.mark.parametrize(
    ("change", "param", "words"),
    [
        ({"messages": [{"role": "user", "content": 42}]}, "messages[0].content", "valid string"),
        ({"messages": [{"content": "hi"}]}, "messages[0].role", "required"),
        ({"n": 2}, "n", "only n=1"),
        ({"temperature": -1}, "temperature", "greater than or equal to 0"),
        (
            {"chat_template_kwargs": {"thinking": "yes"}},
            "chat_template_kwargs.thinking",
            "must be true or false, not 'yes'",
        ),
        ({"messages": []}, "messages", "at least 1"),
    ],
)
def test_bad_request_is_400_naming_the_field(
    proxy_factory: Any, fake_backend: Any, change: dict[str, Any], param: str, words: str
) -> None:
    fake, _ = fake_backend
    proxy = proxy_factory("openai")
    body = {"model": MODEL, "messages": USER, **change}
    response = httpx.post(proxy.url + "/v1/chat/completions", json=body)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["type"] == "invalid_request_error"
    assert error["param"] is not None and error["param"].startswith(param)
    assert words in error["message"]
    assert_alive(proxy, fake)


def test_bad_request_through_the_openai_client(proxy_factory: Any, fake_backend: Any) -> None:
    fake, _ = fake_backend
    proxy = proxy_factory("ollama")
    with pytest.raises(openai.BadRequestError) as info:
        client_for(proxy.port).chat.completions.create(
            model=MODEL,
            messages=USER,
            extra_body={"chat_template_kwargs": {"controls": {"citation": True}}},
        )
    assert error_of(info.value)["param"].startswith("chat_template_kwargs.controls")
    assert_alive(proxy, fake)


@pytest.mark.parametrize("body", [b"{not json", b"[1, 2]", b'{"messages": []}'])
def test_unreadable_body_is_400(proxy_factory: Any, fake_backend: Any, body: bytes) -> None:
    fake, _ = fake_backend
    proxy = proxy_factory("openai")
    response = httpx.post(proxy.url + "/v1/chat/completions", content=body, headers=JSON)
    assert response.status_code == 400
    assert response.json()["error"]["type"] == "invalid_request_error"
    assert_alive(proxy, fake)


def test_unknown_model_is_404(proxy_factory: Any, fake_backend: Any) -> None:
    fake, _ = fake_backend
    proxy = proxy_factory("openai")
    with pytest.raises(openai.NotFoundError) as info:
        client_for(proxy.port).chat.completions.create(model="llama-3-70b", messages=USER)
    error = error_of(info.value)
    assert (error["param"], error["code"]) == ("model", "model_not_found")
    assert "llama-3-70b" in error["message"]
    assert_alive(proxy, fake)


@pytest.mark.parametrize("kind", KINDS)
def test_backend_error_status_is_502(proxy_factory: Any, fake_backend: Any, kind: str) -> None:
    fake, _ = fake_backend
    proxy = proxy_factory(kind)
    messages: list[ChatCompletionMessageParam] = [
        {"role": "user", "content": f"fail with 500 ({kind})"}
    ]
    request = {"messages": messages}
    fake.script(prompt_for(request), Script("never sent", fault="status500"))
    client = client_for(proxy.port)
    for stream in (False, True):
        with pytest.raises(openai.APIStatusError) as info:
            client.chat.completions.create(model=MODEL, messages=messages, stream=stream)
        assert info.value.status_code == 502
        assert "HTTP 500" in error_of(info.value)["message"]
    assert_alive(proxy, fake)


def test_backend_refusing_connections_is_502() -> None:
    from granite_formatters._serve import ServeConfig, create_app

    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    proxy = ServerThread(create_app(ServeConfig(backend=f"http://127.0.0.1:{port}/v1")))
    try:
        for stream in (False, True):
            with pytest.raises(openai.APIStatusError) as info:
                client_for(proxy.port).chat.completions.create(
                    model=MODEL, messages=USER, stream=stream
                )
            assert info.value.status_code == 502
            assert "cannot reach the backend" in error_of(info.value)["message"]
        assert httpx.get(proxy.url + "/health").status_code == 200
    finally:
        proxy.stop()


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("fault", ["garbage", "truncate"])
def test_broken_backend_stream(
    proxy_factory: Any, fake_backend: Any, kind: str, fault: str
) -> None:
    """Non-streaming: 502. Streaming: what was parsed, then an error event, then [DONE]."""
    fake, _ = fake_backend
    proxy = proxy_factory(kind)
    request = {**REASONING.request(), "messages": [{"role": "user", "content": f"{fault} {kind}"}]}
    fake.script(prompt_for(request), Script(REASONING.output, cut="markers", fault=fault))
    body = {"model": MODEL, **request}
    response = httpx.post(proxy.url + "/v1/chat/completions", json=body)
    assert response.status_code == 502
    # (asked for whole, the answer's body is malformed, or cut by the lost connection)
    reason = "malformed" if fault == "garbage" else "connection failed"
    assert reason in response.json()["error"]["message"]

    sent = "".join(
        cut_text(REASONING.output, "markers")[: len(cut_text(REASONING.output, "markers")) // 2]
    )
    expected = get_formatter(MODEL).parse(sent, request).to_openai()
    events = []
    with httpx.stream(
        "POST", proxy.url + "/v1/chat/completions", json={**body, "stream": True}, timeout=20
    ) as r:
        assert r.status_code == 200
        for line in r.iter_lines():
            if line.startswith("data: "):
                events.append(line[len("data: ") :])
    assert events[-1] == "[DONE]"
    error = json.loads(events[-2])["error"]
    assert error["type"] == "backend_error"
    chunks = [json.loads(e) for e in events[:-2]]
    assert all(c["choices"][0]["finish_reason"] is None for c in chunks)
    deltas = [c["choices"][0]["delta"] for c in chunks]
    assert "".join(d.get("reasoning_content", "") for d in deltas) == expected["reasoning_content"]
    assert "".join(d.get("content", "") for d in deltas) == expected["content"]
    assert expected["reasoning_content"]  # something was parsed before the break

    # The openai client sees the partial answer, then raises on the error event.
    received = []
    with (
        pytest.raises(openai.APIError),
        client_for(proxy.port).chat.completions.create(
            model=MODEL, messages=request["messages"], extra_body=REASONING.extra, stream=True
        ) as stream,
    ):
        for chunk in stream:
            received.append(chunk)
    assert received
    assert_alive(proxy, fake)


@pytest.mark.parametrize("kind", KINDS)
def test_backend_timeouts_are_504(proxy_factory: Any, fake_backend: Any, kind: str) -> None:
    fake, _ = fake_backend
    proxy = proxy_factory(kind, read_timeout=0.5)
    client = client_for(proxy.port)
    hang_headers: list[ChatCompletionMessageParam] = [
        {"role": "user", "content": f"hang before answering ({kind})"}
    ]
    hang_body: list[ChatCompletionMessageParam] = [
        {"role": "user", "content": f"hang after one event ({kind})"}
    ]
    fake.script(prompt_for({"messages": hang_headers}), Script("x", fault="hang_headers"))
    fake.script(
        prompt_for({"messages": hang_body}), Script(PLAIN_ANSWER, cut="chars", fault="hang_body")
    )
    for messages in (hang_headers, hang_body):
        with pytest.raises(openai.APIStatusError) as info:
            client.chat.completions.create(model=MODEL, messages=messages)
        assert info.value.status_code == 504
    with pytest.raises(openai.APIStatusError) as info:
        client.chat.completions.create(model=MODEL, messages=hang_headers, stream=True)
    assert info.value.status_code == 504
    received = []
    with (
        pytest.raises(openai.APIError, match="timed out"),
        client.chat.completions.create(model=MODEL, messages=hang_body, stream=True) as stream,
    ):
        for chunk in stream:
            received.append(chunk.choices[0].delta.content or "")
    assert "".join(received) == PLAIN_ANSWER[:1]
    assert_alive(proxy, fake)


@pytest.mark.parametrize("kind", KINDS)
def test_client_disconnect_cancels_the_backend_request(
    proxy_factory: Any, fake_backend: Any, kind: str
) -> None:
    fake, _ = fake_backend
    proxy = proxy_factory(kind)
    messages: list[ChatCompletionMessageParam] = [
        {"role": "user", "content": f"talk slowly ({kind})"}
    ]
    fake.script(
        prompt_for({"messages": messages}), Script("word " * 2000, cut="pieces", fault="slow")
    )
    with fake.lock:
        cancelled_before = fake.cancelled
    with client_for(proxy.port).chat.completions.create(
        model=MODEL, messages=messages, stream=True
    ) as stream:
        for i, _chunk in enumerate(stream):
            if i == 3:
                break
    assert fake.cancelled_since(cancelled_before) == 1
    assert_alive(proxy, fake)


def test_api_key(proxy_factory: Any, fake_backend: Any) -> None:
    fake, _ = fake_backend
    proxy = proxy_factory("openai", api_key="s3cret-key")
    for key in ("wrong", "s3cret-key-and-more", "s3cret-ke"):
        with pytest.raises(openai.AuthenticationError) as info:
            client_for(proxy.port, api_key=key).chat.completions.create(model=MODEL, messages=USER)
        assert error_of(info.value)["code"] == "invalid_api_key"
    assert httpx.post(proxy.url + "/v1/chat/completions", json={}).status_code == 401
    assert httpx.get(proxy.url + "/v1/models").status_code == 401
    assert (
        httpx.get(
            proxy.url + "/v1/models", headers={"Authorization": "Bearer s3cret-key"}
        ).status_code
        == 200
    )
    assert_alive(proxy, fake, api_key="s3cret-key")


def test_size_limits_are_413(proxy_factory: Any, fake_backend: Any) -> None:
    fake, _ = fake_backend
    proxy = proxy_factory("openai", max_body_bytes=4000, max_prompt_chars=600)
    client = client_for(proxy.port)
    with pytest.raises(openai.APIStatusError) as info:
        client.chat.completions.create(
            model=MODEL, messages=[{"role": "user", "content": "x" * 5000}]
        )
    assert info.value.status_code == 413
    assert "4000 bytes" in error_of(info.value)["message"]
    # Chunked upload without a Content-Length is counted as it arrives.
    chunked = httpx.post(
        proxy.url + "/v1/chat/completions",
        content=iter([b"{" + b" " * 3000, b" " * 3000 + b"}"]),
        headers=JSON,
    )
    assert chunked.status_code == 413
    with pytest.raises(openai.APIStatusError) as info:
        client.chat.completions.create(
            model=MODEL, messages=[{"role": "user", "content": "y" * 1000}]
        )
    assert info.value.status_code == 413
    assert error_of(info.value)["param"] == "messages"
    assert_alive(proxy, fake)
