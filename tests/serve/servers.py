"""Real loopback servers for the serve tests: a uvicorn runner and the fake completions backends.

The fake backend answers the three wire formats the proxy speaks (OpenAI/vLLM
``/v1/completions`` SSE, llama.cpp ``/completion`` SSE, Ollama ``/api/generate`` NDJSON)
from a script chosen by the prompt it receives, cutting the model's text into events and
the wire bytes into network writes as the script says.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import socket
import threading
import time
from collections.abc import AsyncIterator
from typing import Any

import attrs
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

MARKERS = (
    "<|", "|>", "<think>", "</think>", "<response>", "</response>", "<co>", "</co>",
    "<tool_call>", "</tool_call>", "Here is my", "# Citations:",
)  # fmt: skip


class ServerThread:
    """A uvicorn server on a free 127.0.0.1 port, in a thread; ``stop()`` ends it."""

    def __init__(self, app: Any) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.port: int = self.sock.getsockname()[1]
        config = uvicorn.Config(
            app,
            log_level="warning",
            access_log=False,
            log_config=None,
            timeout_graceful_shutdown=1,
            limit_concurrency=1000,
            backlog=256,
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True
        )
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the test server did not start")
            time.sleep(0.01)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)
        self.sock.close()


@attrs.define
class Script:
    """What the fake model generates for one prompt, and how it reaches the wire.

    ``cut``: ``whole`` (one event), ``chars`` (one character per event), ``markers`` (every
    marker cut in two, else 5-character pieces), ``pieces`` (4-character pieces).
    ``write``: bytes per network write (``None``: one write per event; ``"mid-utf8"``: the
    whole stream cut inside every multi-byte character), so a character or an event can be
    split across writes.
    ``fault``: ``status500``, ``garbage``, ``truncate``, ``hang_headers``, ``hang_body``,
    ``slow`` (many small events, with pauses: for the disconnect test).
    """

    output: str
    cut: str = "pieces"
    write: int | str | None = None
    finish: str = "stop"
    fault: str | None = None


def cut_text(text: str, how: str) -> list[str]:
    if how == "whole":
        return [text]
    if how == "chars":
        return list(text)
    if how == "pieces":
        return [text[i : i + 4] for i in range(0, len(text), 4)]
    assert how == "markers", how
    cuts = set(range(5, len(text), 5))
    for marker in MARKERS:
        start = text.find(marker)
        while start != -1:
            cuts.add(start + max(1, len(marker) // 2))
            start = text.find(marker, start + 1)
    bounds = [0, *sorted(c for c in cuts if 0 < c < len(text)), len(text)]
    return [text[a:b] for a, b in itertools.pairwise(bounds) if b > a]


def split_inside_characters(data: bytes) -> list[bytes]:
    """``data`` cut after the first byte of every multi-byte UTF-8 character."""
    cuts = [i + 1 for i, byte in enumerate(data) if byte >= 0xC0]
    bounds = [0, *cuts, len(data)]
    parts = [data[a:b] for a, b in itertools.pairwise(bounds) if b > a]
    assert any(part[-1] >= 0xC0 for part in parts), "no multi-byte character to split"
    return parts


def _sse(data: dict[str, Any] | str) -> bytes:
    text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
    return f"data: {text}\n\n".encode()


def fake_logprobs(piece: str) -> dict[str, Any]:
    """vLLM's completions ``logprobs`` for one token (the piece), with one alternative."""
    return {
        "text_offset": [0],
        "token_logprobs": [-0.25],
        "tokens": [piece],
        "top_logprobs": [{piece: -0.25, "?": -3.5}],
    }


def wire_events(
    kind: str, model: str, pieces: list[str], finish: str, complete: bool, logprobs: bool = False
) -> list[bytes]:
    """The byte events of a backend stream in ``kind``'s real format."""
    n = len(pieces)
    out: list[bytes] = []
    if kind == "openai":
        for piece in pieces:
            lp = fake_logprobs(piece) if logprobs else None
            out.append(_sse({"id": "cmpl-fake", "object": "text_completion", "created": 1764547200, "model": model,
                             "choices": [{"index": 0, "text": piece, "logprobs": lp, "finish_reason": None, "stop_reason": None}],
                             "usage": None}))  # fmt: skip
        if complete:
            out.append(_sse({"id": "cmpl-fake", "object": "text_completion", "created": 1764547200, "model": model,
                             "choices": [{"index": 0, "text": "", "logprobs": None, "finish_reason": finish, "stop_reason": None}],
                             "usage": None}))  # fmt: skip
            out.append(_sse({"id": "cmpl-fake", "object": "text_completion", "created": 1764547200, "model": model,
                             "choices": [], "usage": {"prompt_tokens": 321, "total_tokens": 321 + n, "completion_tokens": n}}))  # fmt: skip
            out.append(_sse("[DONE]"))
    elif kind == "llamacpp":
        for piece in pieces:
            out.append(_sse({"index": 0, "content": piece, "tokens": [], "stop": False, "id_slot": 0,
                             "tokens_predicted": 1, "tokens_evaluated": 321}))  # fmt: skip
        if complete:
            out.append(_sse({"index": 0, "content": "", "tokens": [], "id_slot": 0, "stop": True, "model": model,
                             "tokens_predicted": n, "tokens_evaluated": 321, "generation_settings": {},
                             "prompt": "", "has_new_line": False, "truncated": False,
                             "stop_type": "limit" if finish == "length" else "eos", "stopping_word": "",
                             "tokens_cached": 320, "timings": {"prompt_n": 321, "predicted_n": n}}))  # fmt: skip
    else:
        for piece in pieces:
            out.append((json.dumps({"model": model, "created_at": "2026-12-01T08:00:00.000000Z", "response": piece,
                                    "done": False}, ensure_ascii=False) + "\n").encode())  # fmt: skip
        if complete:
            out.append((json.dumps({"model": model, "created_at": "2026-12-01T08:00:01.000000Z", "response": "",
                                    "done": True, "done_reason": finish, "total_duration": 1000000,
                                    "load_duration": 1000, "prompt_eval_count": 321, "prompt_eval_duration": 1000,
                                    "eval_count": n, "eval_duration": 100000}) + "\n").encode())  # fmt: skip
    return out


class FakeBackend:
    """The scripted completions server; records every request it gets."""

    def __init__(self) -> None:
        self.scripts: dict[str, Script] = {}
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self.peers: list[int] = []  # the client port of each request (connection reuse)
        self.cancelled = 0
        self.finished = 0
        self.lock = threading.Lock()
        self.app = Starlette(
            routes=[
                Route("/v1/completions", self._handler("openai"), methods=["POST"]),
                Route("/completion", self._handler("llamacpp"), methods=["POST"]),
                Route("/api/generate", self._handler("ollama"), methods=["POST"]),
            ]
        )

    def script(self, prompt: str, script: Script) -> None:
        with self.lock:
            self.scripts[prompt] = script

    def last_request(self, prompt: str) -> dict[str, Any]:
        with self.lock:
            for _kind, body in self.requests[::-1]:
                if body.get("prompt") == prompt:
                    return body
        raise AssertionError("the backend never received that prompt")

    def _handler(self, kind: str) -> Any:
        async def handle(request: Request) -> Response:
            body = await request.json()
            with self.lock:
                self.requests.append((kind, body))
                self.peers.append(request.client.port if request.client else -1)
                script = self.scripts.get(body.get("prompt", ""))
            if script is None:
                return JSONResponse({"error": "no script for this prompt"}, status_code=400)
            if script.fault == "status500":
                return JSONResponse(
                    {"object": "error", "message": "CUDA out of memory", "code": 500},
                    status_code=500,
                )
            if script.fault == "hang_headers":
                await asyncio.sleep(8)
                return JSONResponse({})
            model = str(body.get("model", "llamacpp-model"))
            pieces = cut_text(script.output, script.cut)
            complete = script.fault not in ("truncate", "garbage")
            if script.fault in ("truncate", "garbage"):
                pieces = pieces[: max(1, len(pieces) // 2)]
            events = wire_events(kind, model, pieces, script.finish, complete, "logprobs" in body)
            if script.fault == "garbage":
                events.append(
                    b'data: {"choices": [oops\n\n' if kind != "ollama" else b'{"response": oops\n'
                )
            media = "application/x-ndjson" if kind == "ollama" else "text/event-stream"
            return StreamingResponse(self._send(events, script), media_type=media)

        return handle

    async def _send(self, events: list[bytes], script: Script) -> AsyncIterator[bytes]:
        done = False
        try:
            if script.write is None:
                writes = events
            elif script.write == "mid-utf8":
                writes = split_inside_characters(b"".join(events))
            else:
                data = b"".join(events)
                size = int(script.write)
                writes = [data[i : i + size] for i in range(0, len(data), size)]
            for i, chunk in enumerate(writes):
                yield chunk
                if script.fault == "slow":
                    await asyncio.sleep(0.02)
                elif script.fault == "hang_body" and i == 0:
                    await asyncio.sleep(8)
                elif i % 16 == 15:
                    await asyncio.sleep(0)
            done = True
        finally:
            with self.lock:
                if done:
                    self.finished += 1
                else:
                    self.cancelled += 1
