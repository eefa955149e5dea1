"""A client that does not stream: its answer is asked of the backend whole (one JSON body),
unless ``--stream-backend``; ``--timeout`` then bounds the whole answer's wait."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from granite_formatters import get_formatter

from .conftest import KINDS
from .servers import Script
from support.toy_plugins import counted_lookups

MODEL = "granite-3.3-8b-instruct"


def _ask(proxy: Any, fake: Any, tag: str, script: Script, stream: bool) -> httpx.Response:
    messages = [{"role": "user", "content": tag}]
    fake.script(get_formatter(MODEL).format({"messages": messages}), script)
    body = {"model": MODEL, "messages": messages, "stream": stream, "max_tokens": 500}
    response = httpx.post(proxy.url + "/v1/chat/completions", json=body, timeout=30)
    response.read()
    return response


def _sent(fake: Any, tag: str) -> dict[str, Any]:
    prompt = get_formatter(MODEL).format({"messages": [{"role": "user", "content": tag}]})
    body: dict[str, Any] = fake.last_request(prompt)
    return body


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("stream_backend", [False, True])
@pytest.mark.parametrize("stream", [False, True])
def test_what_the_backend_is_asked_for(
    proxy_factory: Any, fake_backend: Any, kind: str, stream_backend: bool, stream: bool
) -> None:
    """A streaming client's answer is always streamed from the backend; a non-streaming
    one's is asked for whole (without vLLM's ``stream_options``, which it refuses on a
    request not streamed), unless the server runs with ``--stream-backend``."""
    fake, _ = fake_backend
    proxy = proxy_factory(kind, stream_backend=stream_backend)
    tag = f"asked for ({kind}, {stream_backend}, {stream})"
    response = _ask(proxy, fake, tag, Script("Hello there."), stream)
    assert response.status_code == 200, response.text
    sent = _sent(fake, tag)
    streamed = stream or stream_backend
    assert sent["stream"] is streamed
    if kind == "openai":
        assert ("stream_options" in sent) is streamed
    if not stream:
        assert response.json()["choices"][0]["message"]["content"] == "Hello there."


@pytest.mark.parametrize("kind", KINDS)
def test_the_timeout_bounds_a_whole_answer_and_the_silence_of_a_stream(
    proxy_factory: Any, fake_backend: Any, kind: str
) -> None:
    """An answer that takes 1.2 s, a token every 20 ms, behind ``--timeout 0.5``: asked
    for whole, nothing comes for 1.2 s (a 504); streamed from the backend
    (``--stream-backend``), the backend is never silent for 0.5 s (a 200)."""
    fake, _ = fake_backend
    text = "slow words " * 5 + "end."
    script = Script(text, cut="chars", fault="slow")
    whole = _ask(proxy_factory(kind, read_timeout=0.5), fake, f"slow ({kind})", script, False)
    assert whole.status_code == 504, whole.text
    assert whole.json()["error"]["type"] == "backend_timeout"
    streamed_proxy = proxy_factory(kind, read_timeout=0.5, stream_backend=True)
    streamed = _ask(streamed_proxy, fake, f"slow, streamed ({kind})", script, False)
    assert streamed.status_code == 200, streamed.text
    assert streamed.json()["choices"][0]["message"]["content"] == text


def test_a_models_formatter_is_looked_up_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """``prepare`` takes each request's formatter from the plugin host's memo: one lookup
    per served name; a name no plugin serves is refused each time and never kept. The
    special tokens its answer may hold are the release's, less its ends."""
    from granite_formatters._plugins import default_host
    from granite_formatters._serve import exchange
    from granite_formatters._serve.backends import make_backend

    host = default_host()
    host._forget()
    lookups = counted_lookups(monkeypatch)
    backend = make_backend("openai", "http://127.0.0.1:9/v1")
    body = {"model": MODEL, "messages": [{"role": "user", "content": "Hi"}]}
    first = exchange.prepare(body, backend, {}, 10**6)
    assert exchange.prepare(dict(body), backend, {}, 10**6).formatter is first.formatter
    assert lookups == [MODEL]
    assert first.formatter is get_formatter(MODEL)
    assert "<|start_of_cite|>" in first.preserve and "<|end_of_text|>" not in first.preserve
    unknown = {**body, "model": "no-such-model-xyz"}
    for _ in range(2):
        with pytest.raises(exchange.Refusal) as refused:
            exchange.prepare(unknown, backend, {}, 10**6)
        assert refused.value.status == 404
    assert lookups == [MODEL, "no-such-model-xyz", "no-such-model-xyz"]
    assert "no-such-model-xyz" not in host._memo[1]


def test_the_answer_tokens_are_worked_out_once_per_release(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The special tokens an answer may hold (sent for llama.cpp to print) are the
    release's less its ends, worked out on its first request and kept per release (by
    identity, bounded): each release its own, a new release object anew."""
    import attrs

    from granite_formatters._serve import exchange

    monkeypatch.setattr(exchange, "_ANSWER_TOKENS", {})
    monkeypatch.setattr(exchange, "_MAX_RELEASES", 2)
    g33, g4 = get_formatter(MODEL), get_formatter("granite-4.0-h-small")
    first = exchange._answer_tokens(g33)
    assert exchange._answer_tokens(g33) is first
    assert "<|start_of_cite|>" in first and "<|end_of_text|>" not in first
    other = exchange._answer_tokens(g4)
    assert other is not first and "<|start_of_cite|>" not in other
    assert "<|end_of_text|>" not in other
    release = g33.release
    assert release is not None
    twin = attrs.evolve(release, stop_strings=(*release.stop_strings, "<|start_of_cite|>"))
    monkeypatch.setattr(type(g33), "release", property(lambda self: twin))
    assert "<|start_of_cite|>" not in exchange._answer_tokens(g33)  # (a new release: anew)
    assert len(exchange._ANSWER_TOKENS) <= 2
