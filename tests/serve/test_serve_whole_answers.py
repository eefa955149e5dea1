"""A client that does not stream: its answer is asked of the backend whole (one JSON body),
unless ``--stream-backend``; ``--timeout`` then bounds the whole answer's wait."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from granite_formatters import get_formatter

from .conftest import KINDS
from .servers import Script

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


def test_a_models_formatter_is_looked_up_once() -> None:
    """``prepare`` looks each served name's formatter (and the special tokens its answer
    may hold) up once; a name no plugin serves is refused each time and never kept, and
    the table stays bounded."""
    from granite_formatters import UnknownModelError
    from granite_formatters._serve import exchange

    first = exchange._formatter(MODEL)
    assert exchange._formatter(MODEL) is first
    assert first[0].release is get_formatter(MODEL).release
    assert "<|start_of_cite|>" in first[1] and "<|end_of_text|>" not in first[1]
    for _ in range(2):
        with pytest.raises(UnknownModelError):
            exchange._formatter("no-such-model-xyz")
    assert "no-such-model-xyz" not in exchange._FORMATTERS
    assert len(exchange._FORMATTERS) <= exchange._MAX_FORMATTERS
