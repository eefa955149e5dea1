"""What a backend sends never makes a 500."""

from __future__ import annotations

import json
import logging
import math
import socket
import time
from typing import Any

import httpx
import openai
import pytest

from granite_formatters import get_formatter

from .conftest import KINDS, proxy_for
from .outputs import PLAIN_ANSWER
from .servers import Script, count_tokens

MODEL = "granite-3.3-8b-instruct"


def ask(proxy: Any, fake: Any, tag: str, script: Script, stream: bool, **extra: Any) -> Any:
    """Script ``tag``'s prompt, send the chat request; the response (events if streamed)."""
    messages = [{"role": "user", "content": tag}]
    fake.script(get_formatter(MODEL).format({"messages": messages}), script)
    body = {"model": MODEL, "messages": messages, "max_tokens": 1000, "stream": stream, **extra}
    url = proxy.url + "/v1/chat/completions"
    if not stream:
        return httpx.post(url, json=body, timeout=30)
    with httpx.stream("POST", url, json=body, timeout=30) as response:
        if response.status_code != 200:
            response.read()
            return response
        return [
            line[len("data: ") :] for line in response.iter_lines() if line.startswith("data: ")
        ]


def streamed_text(events: list[str]) -> tuple[str, str | None]:
    assert events[-1] == "[DONE]"
    text, finish = "", None
    for event in events[:-1]:
        chunk = json.loads(event)
        assert "error" not in chunk, chunk
        for choice in chunk["choices"]:
            text += choice["delta"].get("content") or ""
            finish = choice["finish_reason"] or finish
    return text, finish


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("stream", [False, True])
def test_backend_text_with_a_lone_surrogate(
    proxy_factory: Any, fake_backend: Any, kind: str, stream: bool
) -> None:
    fake, _ = fake_backend
    got = ask(proxy_factory(kind), fake, f"surrogate {kind}", Script("bad \ud83d char"), stream)
    if stream:
        text, _finish = streamed_text(got)
    else:
        assert got.status_code == 200, got.text
        text = got.json()["choices"][0]["message"]["content"]
    assert text == "bad \ufffd char"


@pytest.mark.parametrize("stream", [False, True])
def test_nan_logprobs(proxy_factory: Any, fake_backend: Any, stream: bool) -> None:
    fake, _ = fake_backend
    script = Script(PLAIN_ANSWER, fault="nan_logprobs")
    got = ask(proxy_factory("openai"), fake, "nan logprobs", script, stream, logprobs=True)
    if stream:
        values = [
            t["logprob"]
            for e in got[:-1]
            for c in json.loads(e)["choices"]
            for t in (c.get("logprobs") or {}).get("content") or []
        ]
    else:
        assert got.status_code == 200, got.text
        values = [t["logprob"] for t in got.json()["choices"][0]["logprobs"]["content"]]
    assert values and all(v == -9999.0 for v in values)


def test_a_lone_surrogate_in_the_request_is_sent_as_valid_json() -> None:
    from granite_formatters._serve.backends.base import encode_json

    body = {"prompt": "x\ud800y", "stop": ["\udfff"], "tools": [{"name": "f\ud800"}]}
    data = encode_json(body)
    assert json.loads(data) == body
    assert encode_json({"prompt": "Zürich"}) == '{"prompt":"Zürich"}'.encode()
    with pytest.raises(ValueError):
        encode_json({"temperature": math.inf})


@pytest.mark.parametrize("kind", KINDS)
def test_missing_usage_is_null(proxy_factory: Any, fake_backend: Any, kind: str) -> None:
    fake, _ = fake_backend
    proxy = proxy_factory(kind)
    if kind == "openai":
        got = ask(proxy, fake, "no usage", Script(PLAIN_ANSWER, fault="no_usage"), False)
        assert got.status_code == 200 and got.json()["usage"] is None
        events = ask(
            proxy, fake, "no usage", Script(PLAIN_ANSWER, fault="no_usage"), True,
            stream_options={"include_usage": True},
        )  # fmt: skip
        assert json.loads(events[-2])["usage"] is None
    else:  # these backends always count
        got = ask(proxy, fake, f"usage {kind}", Script(PLAIN_ANSWER), False)
        assert got.json()["usage"]["completion_tokens"] > 0


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("stream", [False, True])
def test_a_backend_that_keeps_the_connection_open_after_the_answer(
    proxy_factory: Any, fake_backend: Any, kind: str, stream: bool
) -> None:
    """[DONE] (or llama.cpp's stop, Ollama's done) then nothing, connection open: the whole
    answer, not a 504 when the read timeout comes."""
    fake, _ = fake_backend
    proxy = proxy_factory(kind, read_timeout=3.0)
    script = Script(PLAIN_ANSWER, fault="done_then_open")
    got = ask(proxy, fake, f"done then open {kind}", script, stream)
    if stream:
        assert streamed_text(got) == (PLAIN_ANSWER, "stop")
    else:
        assert got.status_code == 200, got.text
        assert got.json()["choices"][0]["message"]["content"] == PLAIN_ANSWER


@pytest.mark.parametrize("fault", ["no_done", "finish_then_open"])
@pytest.mark.parametrize("stream", [False, True])
def test_finish_reason_without_done_keeps_the_answer(
    proxy_factory: Any, fake_backend: Any, fault: str, stream: bool
) -> None:
    fake, _ = fake_backend
    proxy = proxy_factory("openai", read_timeout=3.0)
    got = ask(proxy, fake, f"{fault} answer", Script(PLAIN_ANSWER, fault=fault), stream)
    if stream:
        assert streamed_text(got) == (PLAIN_ANSWER, "stop")
    else:
        assert got.status_code == 200, got.text
        body = got.json()
        assert body["choices"][0]["message"]["content"] == PLAIN_ANSWER
        assert body["usage"]["completion_tokens"] > 0


@pytest.mark.parametrize("kind", KINDS)
def test_garbage_before_anything_was_sent_is_a_502(
    proxy_factory: Any, fake_backend: Any, kind: str
) -> None:
    fake, _ = fake_backend
    got = ask(
        proxy_factory(kind), fake, f"garbage first {kind}", Script("x", fault="garbage_first"), True
    )
    assert isinstance(got, httpx.Response) and got.status_code == 502
    error = got.json()["error"]
    assert error["type"] == "backend_error" and "malformed" in error["message"]
    assert "oops" not in error["message"]  # no backend text


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(
    ("stream", "stream_backend"), [(False, False), (False, True), (True, False)]
)
def test_endless_output_is_bounded(
    proxy_factory: Any, fake_backend: Any, kind: str, stream: bool, stream_backend: bool
) -> None:
    """Past ``--max-output-bytes`` the answer ends (``length``): a streamed backend
    request is ended there; one asked for whole stops at its token limit, and its text is
    cut."""
    fake, _ = fake_backend
    proxy = proxy_factory(kind, max_output_bytes=3000, stream_backend=stream_backend)
    with fake.lock:
        cancelled = fake.cancelled
    tag = f"endless {kind} {stream_backend}"
    got = ask(proxy, fake, tag, Script("word " * 50, fault="endless"), stream)
    if stream:
        text, finish = streamed_text(got)
    else:
        assert got.status_code == 200, got.text
        text = got.json()["choices"][0]["message"]["content"]
        finish = got.json()["choices"][0]["finish_reason"]
    assert finish == "length" and 2900 < len(text.encode()) <= 3000
    prompt = get_formatter(MODEL).format({"messages": [{"role": "user", "content": tag}]})
    streamed = stream or stream_backend
    assert fake.last_request(prompt)["stream"] is streamed
    if streamed:
        assert fake.cancelled_since(cancelled) == 1  # the backend request was ended


@pytest.mark.parametrize("kind", KINDS)
def test_a_non_streaming_client_that_leaves_cancels_the_backend_request(
    proxy_factory: Any, fake_backend: Any, kind: str
) -> None:
    fake, _ = fake_backend
    proxy = proxy_factory(kind)
    messages = [{"role": "user", "content": f"slow, then nobody listens ({kind})"}]
    prompt = get_formatter(MODEL).format({"messages": messages})
    fake.script(prompt, Script("word " * 2000, cut="pieces", fault="slow"))
    with fake.lock:
        cancelled = fake.cancelled
    body = json.dumps({"model": MODEL, "messages": messages}).encode()
    with socket.create_connection(("127.0.0.1", proxy.port)) as sock:
        sock.sendall(
            b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not any(
            b.get("prompt") == prompt for _k, b in fake.requests
        ):  # (the backend has this request: the client leaves while it generates)
            time.sleep(0.02)
    assert fake.cancelled_since(cancelled) == 1


def test_the_access_log_of_a_non_streaming_request_has_its_usage(
    proxy_factory: Any, fake_backend: Any, caplog: pytest.LogCaptureFixture
) -> None:
    fake, _ = fake_backend
    proxy = proxy_factory("openai")
    messages = [{"role": "user", "content": "usage in the log"}]
    prompt = get_formatter(MODEL).format({"messages": messages})
    fake.script(prompt, Script(PLAIN_ANSWER))
    with caplog.at_level(logging.INFO, logger="granite_formatters.serve"):
        got = httpx.post(
            proxy.url + "/v1/chat/completions", json={"model": MODEL, "messages": messages}
        )
    assert got.status_code == 200
    usage = got.json()["usage"]
    lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith("chat ")]
    assert any(
        f"prompt_tokens={count_tokens(prompt)} completion_tokens={usage['completion_tokens']}"
        in line
        for line in lines
    ), lines


def test_shutdown_mid_stream_ends_with_an_error_event_and_done(
    proxy_factory: Any, fake_backend: Any
) -> None:
    """The stream goes on for most of the grace period, then ends properly (not cut)."""
    from sse_starlette.sse import AppStatus

    fake, _ = fake_backend
    proxy = proxy_factory("openai", shutdown_grace=2.0)
    messages = [{"role": "user", "content": "a long answer, then a shutdown"}]
    output = "word " * 2000
    fake.script(
        get_formatter(MODEL).format({"messages": messages}),
        Script(output, cut="pieces", fault="slow"),
    )
    body = {"model": MODEL, "messages": messages, "max_tokens": 3000, "stream": True}
    events: list[str] = []
    try:
        with httpx.stream(
            "POST", proxy.url + "/v1/chat/completions", json=body, timeout=30
        ) as response:
            for line in response.iter_lines():
                if line.startswith("data: "):
                    events.append(line[len("data: ") :])
                if len(events) == 3:
                    AppStatus.should_exit = True  # what uvicorn's SIGTERM handler sets
    finally:
        AppStatus.should_exit = False
    assert events[-1] == "[DONE]"
    error = json.loads(events[-2])["error"]
    assert error["type"] == "service_unavailable"
    assert "shutting down" in error["message"]
    text = "".join(json.loads(e)["choices"][0]["delta"].get("content") or "" for e in events[:-2])
    assert text and output.startswith(text) and len(text) < len(output)


@pytest.mark.parametrize("stream", [False, True])
def test_the_access_log_says_dash_when_the_backend_reported_no_usage(
    proxy_factory: Any, fake_backend: Any, caplog: pytest.LogCaptureFixture, stream: bool
) -> None:
    fake, _ = fake_backend
    proxy = proxy_factory("openai")
    with caplog.at_level(logging.INFO, logger="granite_formatters.serve"):
        got = ask(proxy, fake, "no usage log", Script(PLAIN_ANSWER, fault="no_usage"), stream)
        assert got[-1] == "[DONE]" if stream else got.status_code == 200
        for _ in range(200):  # the streamed line is written after [DONE]: wait (bounded)
            lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith("chat ")]
            if lines:
                break
            time.sleep(0.025)
    assert len(lines) == 1, lines
    assert " status=200 " in lines[0]
    assert lines[0].endswith(" prompt_tokens=- completion_tokens=-"), lines


def requests_for(fake: Any, prompt: str) -> int:
    """How many generation requests for ``prompt`` the fake backend has had."""
    with fake.lock:
        return sum(body.get("prompt") == prompt for _kind, body in fake.requests)


def refused_error(status: int) -> dict[str, Any]:
    return {
        "message": f"the backend refused the request (HTTP {status})",
        "type": "invalid_request_error",
        "param": None,
        "code": "backend_refused",
    }


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("status", [400, 413, 422])
@pytest.mark.parametrize("stream", [False, True])
def test_a_backend_refusal_is_the_clients_400(
    proxy_factory: Any,
    fake_backend: Any,
    caplog: pytest.LogCaptureFixture,
    kind: str,
    status: int,
    stream: bool,
) -> None:
    """Clients do not send a 400 again (they retry a 502); the backend's words (which can
    quote the prompt) stay out of the answer and, without --log-prompts, of the log."""
    fake, _ = fake_backend
    tag = f"refused {status} {kind} {stream}"
    with caplog.at_level(logging.INFO, logger="granite_formatters.serve"):
        got = ask(proxy_factory(kind), fake, tag, Script("x", fault=f"status{status}"), stream)
        assert isinstance(got, httpx.Response) and got.status_code == 400, got
        assert got.json() == {"error": refused_error(status)}
        for _ in range(200):  # (bounded wait for the access log line)
            lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith("chat ")]
            if lines:
                break
            time.sleep(0.025)
    assert len(lines) == 1 and " status=400 " in lines[0], lines
    assert tag not in got.text and tag not in lines[0]


@pytest.mark.parametrize("stream", [False, True])
def test_vllms_400_for_a_prompt_over_the_context_is_a_400(
    backend_factory: Any, stream: bool
) -> None:
    fake, thread = backend_factory(max_model_len=64)  # (the request asks 1000 tokens)
    proxy = proxy_for(thread, "openai")
    try:
        got = ask(proxy, fake, f"over the context {stream}", Script("Hi."), stream)
    finally:
        proxy.stop()
    assert isinstance(got, httpx.Response) and got.status_code == 400
    assert got.json() == {"error": refused_error(400)}
    assert "maximum context length" not in got.text


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize(
    ("sent", "passed"),
    [
        ("7", "7"),
        ("0", "0"),
        ("3600", "3600"),
        ("3601", None),
        ("10000", None),
        ("1.5", None),
        ("-1", None),
        ("\u00b2", None),  # (a digit to str.isdigit, not a number of seconds)
        ("Wed, 21 Oct 2026 07:28:00 GMT", None),
        (None, None),
    ],
)
def test_a_busy_backends_429_is_a_429_with_its_retry_after(
    proxy_factory: Any,
    fake_backend: Any,
    kind: str,
    stream: bool,
    sent: str | None,
    passed: str | None,
) -> None:
    fake, _ = fake_backend
    script = Script("x", fault="status429", retry_after=sent)
    got = ask(proxy_factory(kind), fake, f"busy {kind} {stream} {sent}", script, stream)
    assert isinstance(got, httpx.Response) and got.status_code == 429, got
    assert got.json() == {
        "error": {
            "message": "the backend answered HTTP 429",
            "type": "rate_limit_error",
            "param": None,
            "code": "rate_limit_exceeded",
        }
    }
    assert got.headers.get("retry-after") == passed


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("status", [404, 500])
@pytest.mark.parametrize("stream", [False, True])
def test_other_backend_statuses_stay_a_502(
    proxy_factory: Any, fake_backend: Any, kind: str, status: int, stream: bool
) -> None:
    """A 404 is the proxy's configuration (a wrong --backend), a 500 the backend's failure."""
    fake, _ = fake_backend
    script = Script("x", fault=f"status{status}")
    got = ask(proxy_factory(kind), fake, f"status {status} {kind} {stream}", script, stream)
    assert isinstance(got, httpx.Response) and got.status_code == 502, got
    assert got.json()["error"] == {
        "message": f"the backend answered HTTP {status}",
        "type": "backend_error",
        "param": None,
        "code": None,
    }
    assert "retry-after" not in got.headers


#: A backend's error as the real ``openai`` client raises it: the fault, the
#: ``Retry-After`` sent, the client's retries (``None``: its default), the error class
#: and its code.
CLIENT_ERRORS: dict[str, tuple[str, str | None, int | None, type[openai.APIStatusError], str]] = {
    "refused": ("status400", None, None, openai.BadRequestError, "backend_refused"),
    "busy": ("status429", "7", 0, openai.RateLimitError, "rate_limit_exceeded"),
}


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("case", sorted(CLIENT_ERRORS))
def test_the_openai_client_raises_a_backends_error_after_one_request(
    proxy_factory: Any, fake_backend: Any, case: str, stream: bool
) -> None:
    """The real client. A refused request (400) raises ``BadRequestError`` at once with
    the default retries (a 502 would be sent three times, then raise
    ``InternalServerError``). A busy backend (429) raises ``RateLimitError`` with
    OpenAI's code and the ``Retry-After`` (retries off: the client retries a 429 after
    it, as it should)."""
    fault, retry_after, retries, error, code = CLIENT_ERRORS[case]
    fake, _ = fake_backend
    proxy = proxy_factory("openai")
    messages: list[Any] = [{"role": "user", "content": f"{case}, asked once ({stream})"}]
    prompt = get_formatter(MODEL).format({"messages": messages})
    fake.script(prompt, Script("x", fault=fault, retry_after=retry_after))
    options: dict[str, Any] = {} if retries is None else {"max_retries": retries}
    client = openai.OpenAI(base_url=proxy.url + "/v1", api_key="unused", timeout=30, **options)
    if retries is None:
        assert client.max_retries == openai.DEFAULT_MAX_RETRIES > 0
    try:
        with pytest.raises(error) as info:
            client.chat.completions.create(model=MODEL, messages=messages, stream=stream)
    finally:
        client.close()
    assert info.value.code == code
    assert info.value.response.headers.get("retry-after") == retry_after
    assert requests_for(fake, prompt) == 1
