"""Coalesced writes: the events of a stream do not depend on how many go out in one write."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from granite_formatters import get_formatter
from granite_formatters._serve import ServeConfig, create_app
from granite_formatters._serve import app as serve_app

from .conftest import backend_url
from .outputs import G33
from .servers import Script, ServerThread

MODEL = "granite-3.3-8b-instruct"


class WriteRecorder:
    """ASGI wrapper: the body of each ``http.response.body`` message of a chat stream."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.writes: list[bytes] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        async def record(message: Any) -> None:
            if message["type"] == "http.response.body" and message.get("body"):
                self.writes.append(message["body"])
            await send(message)

        await self.inner(scope, receive, record)


@pytest.fixture(scope="module")
def recorded(fake_backend: Any) -> Iterator[tuple[ServerThread, WriteRecorder]]:
    _fake, thread = fake_backend
    config = ServeConfig(backend=backend_url(thread, "openai"), read_timeout=10.0)
    recorder = WriteRecorder(create_app(config))
    server = ServerThread(recorder)
    yield server, recorder
    server.stop()


def normalized(event: str) -> str:
    """An event with what differs between two answers (ids, time) made fixed."""
    event = re.sub(r'"id":"chatcmpl-[0-9a-f]+"', '"id":"chatcmpl-X"', event)
    event = re.sub(r'"created":\d+', '"created":0', event)
    return re.sub(r'"id":"call_[0-9A-Za-z]{16}', '"id":"call_', event)


def streamed(proxy: ServerThread, case: Any, tag: str) -> list[str]:
    request = {**case.request(), "messages": [{"role": "user", "content": tag}]}
    body = {
        "model": MODEL, **request, "stream": True, "max_tokens": 1500, "logprobs": True,
        "stream_options": {"include_usage": True},
    }  # fmt: skip
    with httpx.stream("POST", proxy.url + "/v1/chat/completions", json=body, timeout=30) as r:
        assert r.status_code == 200, r.read()
        return [normalized(line) for line in r.iter_lines() if line]


@pytest.mark.parametrize("case", [G33[1], G33[2], G33[4]], ids=lambda case: case.name)
def test_coalesced_writes_send_the_same_events(
    recorded: tuple[ServerThread, WriteRecorder],
    fake_backend: Any,
    monkeypatch: pytest.MonkeyPatch,
    case: Any,
) -> None:
    """Backend events that arrive together (here: many in one network write) go out in one
    write; the client gets exactly the events it gets with one write per backend event."""
    fake, _ = fake_backend
    proxy, recorder = recorded
    tag = f"coalesced writes {case.name}"
    request = {**case.request(), "messages": [{"role": "user", "content": tag}]}
    # One character per event, 8 KiB per network write: events arrive in bursts.
    fake.script(get_formatter(MODEL).format(request), Script(case.output, cut="chars", write=8192))

    monkeypatch.setattr(serve_app, "MAX_BATCH", 1)  # one backend event per write
    recorder.writes.clear()
    one_by_one = streamed(proxy, case, tag)
    writes_one_by_one = len(recorder.writes)
    monkeypatch.undo()
    recorder.writes.clear()
    coalesced = streamed(proxy, case, tag)
    writes_coalesced = len(recorder.writes)

    assert coalesced == one_by_one
    assert coalesced[-1] == "data: [DONE]"
    assert json.loads(coalesced[-2].removeprefix("data: "))["usage"]["completion_tokens"] > 0
    assert writes_coalesced <= writes_one_by_one
    if case.tool_call is None:  # (a tool call is sent whole, at the end: few writes anyway)
        assert writes_coalesced < writes_one_by_one / 4, (writes_coalesced, writes_one_by_one)
        assert max(w.count(b"\n\n") for w in recorder.writes) > 4
