"""OpenAI response shapes: the completion, the stream chunks and the error object."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping
from typing import Any

from starlette.background import BackgroundTask
from starlette.responses import JSONResponse, Response

from .backends import Usage

__all__ = [
    "STREAMED_KEYS",
    "ChunkMaker",
    "JSONBody",
    "completion",
    "completion_json",
    "error_body",
    "error_response",
    "finish_reason",
    "openai_message",
    "sse_event",
]

#: Message keys that stream deltas carry as they come; everything else ``to_openai()``
#: returns (citations, hallucinations, documents, ...) is sent once, in the last delta.
STREAMED_KEYS = frozenset({"role", "content", "reasoning_content", "reasoning", "tool_calls"})

_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    405: "invalid_request_error",
    413: "invalid_request_error",
    415: "invalid_request_error",
    429: "rate_limit_error",
    502: "backend_error",
    503: "service_unavailable",
    504: "backend_timeout",
}


def error_body(
    status: int, message: str, param: str | None = None, code: str | None = None
) -> dict[str, Any]:
    return {
        "error": {
            "message": message,
            "type": _ERROR_TYPES.get(status, "server_error"),
            "param": param,
            "code": code,
        }
    }


def error_response(
    status: int,
    message: str,
    param: str | None = None,
    code: str | None = None,
    headers: Mapping[str, str] | None = None,
) -> JSONResponse:
    return JSONResponse(
        error_body(status, message, param, code), status_code=status, headers=headers
    )


#: JSON as Starlette's ``JSONResponse`` writes it (compact, non-ASCII as is, no NaN).
_encode = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode


class JSONBody(Response):
    """A ``200`` response of JSON ``content``: the same bytes and headers as Starlette's
    ``JSONResponse``, its head built in one step (the body of every whole answer);
    ``content`` given as ``bytes`` is that JSON already (:func:`completion_json`)."""

    media_type = "application/json"

    def __init__(self, content: Any) -> None:
        self.status_code = 200
        self.background: BackgroundTask | None = None
        self.body = content if type(content) is bytes else _encode(content).encode("utf-8")
        self.raw_headers = [
            (b"content-length", b"%d" % len(self.body)),
            (b"content-type", b"application/json"),
        ]


def openai_message(message: Any) -> dict[str, Any]:
    """``message.to_openai()`` with ``reasoning`` mirroring ``reasoning_content``."""
    out: dict[str, Any] = dict(message.to_openai())
    if out.get("reasoning_content") is not None:
        out.setdefault("reasoning", out["reasoning_content"])
    return out


def finish_reason(message: dict[str, Any], backend_reason: str) -> str:
    if message.get("tool_calls"):
        return "tool_calls"
    return "length" if backend_reason == "length" else "stop"


def _new_id() -> str:
    return "chatcmpl-" + os.urandom(16).hex()


def completion(
    model: str,
    message: dict[str, Any],
    reason: str,
    usage: Usage | None,
    logprobs: list[dict[str, Any]] | None = None,
    stop_reason: str | int | None = None,
    warnings: list[dict[str, str]] | None = None,
) -> dict[str, Any]:
    """A ``chat.completion`` object; ``stop_reason`` (the stop string or token id the
    backend matched) is added to the choice, as vLLM's chat endpoint adds it, when the
    backend gave one; ``warnings`` (``{"code", "message"}`` objects), when there are any,
    at the top level."""
    choice: dict[str, Any] = {
        "index": 0,
        "message": message,
        "finish_reason": finish_reason(message, reason),
        "logprobs": {"content": logprobs} if logprobs is not None else None,
    }
    if stop_reason is not None:
        choice["stop_reason"] = stop_reason
    body = {
        "id": _new_id(),
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [choice],
        "usage": usage.to_openai() if usage is not None else None,
    }
    if warnings:
        body["warnings"] = warnings
    return body


#: A usage object as JSON (see :meth:`Usage.to_openai`), of its three counts.
_USAGE = '{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}'


def completion_json(
    model: str,
    message: dict[str, Any],
    reason: str,
    usage: Usage | None,
    logprobs: list[dict[str, Any]] | None = None,
    stop_reason: str | int | None = None,
    warnings: list[dict[str, str]] | None = None,
) -> bytes:
    """:func:`completion` as the JSON :class:`JSONBody` writes of it, byte for byte,
    without building the object: its fixed parts written as they are (a whole answer's
    body; encoding the object costs about twice as much)."""
    lp = "null" if logprobs is None else _encode({"content": logprobs})
    stop = "" if stop_reason is None else ',"stop_reason":' + _encode(stop_reason)
    counts = "null" if usage is None else _USAGE % usage.counts()
    tail = ',"warnings":' + _encode(warnings) if warnings else ""
    return (
        f'{{"id":"{_new_id()}","object":"chat.completion","created":{int(time.time())},'
        f'"model":{_encode(model)},"choices":[{{"index":0,"message":{_encode(message)},'
        f'"finish_reason":"{finish_reason(message, reason)}","logprobs":{lp}{stop}}}],'
        f'"usage":{counts}{tail}}}'
    ).encode()


def _dumps(data: Any) -> str:
    """Compact JSON, non-ASCII characters as they are (what every response body uses)."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def sse_event(data: Any) -> bytes:
    """One Server-Sent Event of JSON ``data`` (a lone surrogate sent as ``?``)."""
    return b"data: " + _dumps(data).encode("utf-8", "replace") + b"\n\n"


# The end of a chunk event without finish reason and logprobs (most of them).
_PLAIN_TAIL = b',"finish_reason":null,"logprobs":null}]}\n\n'


class ChunkMaker:
    """Builds the ``chat.completion.chunk`` objects of one stream (same id and time)."""

    def __init__(self, model: str) -> None:
        self.id = _new_id()
        self.created = int(time.time())
        self.model = model
        self._role_sent = False
        # Everything of an event before its delta is the same in every chunk: once.
        head = _dumps(self._object(None, None, None))
        head = head[: head.rindex('"delta":null') + len('"delta":')]
        self._head = b"data: " + head.encode("utf-8", "replace")

    def _delta(self, delta: dict[str, Any]) -> dict[str, Any]:
        if not self._role_sent:
            delta = {"role": "assistant", **delta}
            self._role_sent = True
        elif "role" in delta:  # the parser's first delta also carries the role: once only
            delta = {key: value for key, value in delta.items() if key != "role"}
        if delta.get("reasoning_content") is not None:
            delta.setdefault("reasoning", delta["reasoning_content"])
        return delta

    def chunk(
        self,
        delta: dict[str, Any],
        finish: str | None = None,
        logprobs: list[dict[str, Any]] | None = None,
    ) -> dict[str, Any]:
        return self._object(self._delta(delta), finish, logprobs)

    def event(
        self,
        delta: dict[str, Any],
        finish: str | None = None,
        logprobs: list[dict[str, Any]] | None = None,
        *,
        stop_reason: str | int | None = None,
        warnings: list[dict[str, str]] | None = None,
    ) -> bytes:
        """``sse_event(self.chunk(...))``, byte for byte, without building the chunk;
        ``stop_reason`` is added to the choice and ``warnings`` to the chunk when given
        (see :func:`completion`)."""
        body = _dumps(self._delta(delta))
        if finish is None and logprobs is None and stop_reason is None and not warnings:
            return self._head + body.encode("utf-8", "replace") + _PLAIN_TAIL
        lp = _dumps({"content": logprobs}) if logprobs is not None else "null"
        stop = "" if stop_reason is None else f',"stop_reason":{_dumps(stop_reason)}'
        tail = f',"warnings":{_dumps(warnings)}' if warnings else ""
        body += f',"finish_reason":{_dumps(finish)},"logprobs":{lp}{stop}}}]{tail}}}'
        return self._head + body.encode("utf-8", "replace") + b"\n\n"

    def _object(
        self,
        delta: dict[str, Any] | None,
        finish: str | None,
        logprobs: list[dict[str, Any]] | None,
    ) -> dict[str, Any]:
        return {
            "id": self.id,
            "object": "chat.completion.chunk",
            "created": self.created,
            "model": self.model,
            "choices": [
                {
                    "index": 0,
                    "delta": delta,
                    "finish_reason": finish,
                    "logprobs": {"content": logprobs} if logprobs is not None else None,
                }
            ],
        }

    def usage_chunk(self, usage: Usage | None) -> dict[str, Any]:
        return {
            "id": self.id,
            "object": "chat.completion.chunk",
            "created": self.created,
            "model": self.model,
            "choices": [],
            "usage": usage.to_openai() if usage is not None else None,
        }
