"""A running server, as the doctor talks to it: JSON over HTTP with one-line errors, and
which runtime it is.

Only the URL the user gives is contacted. Every failure (unreachable, an HTTP error, an
answer that is not the JSON expected) is a :class:`~.sources.DoctorError` naming the
endpoint; an error answer's message is quoted from vLLM's shapes (``{"object": "error",
"message": ...}`` and the newer ``{"error": {"message": ...}}``), Ollama's and
llama.cpp's (``{"error": ...}``). The runtime is told apart by the endpoint only it
has: llama.cpp's ``GET /props`` (its settings, with the chat template), Ollama's
``GET /api/version``, vLLM's ``GET /version``, in that order.

A server started with an API key (``llama-server --api-key``, ``vllm serve --api-key``,
a proxy in front of Ollama) gets it as ``Authorization: Bearer KEY`` on every request
when the caller passes ``api_key``; the key is never part of an error message, and a
401 or 403 answer says whether a key is missing or was refused. llama-server refuses
every path but ``/health`` without its key, so a 401 from ``/props`` ends the runtime
detection with that hint instead of trying the other runtimes' endpoints.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any, Literal

from .._errors import quote
from .._serve_args import BACKEND_KEY_ENV, backend_key_problem
from .sources import DoctorError

__all__ = [
    "BACKEND_TYPES",
    "TIMEOUT",
    "BackendType",
    "HTTPFailure",
    "Unreachable",
    "detect",
    "get",
    "post",
    "root",
]

BackendType = Literal["llamacpp", "vllm", "ollama"]
#: The ``--backend-type`` choices; ``auto`` asks the server.
BACKEND_TYPES = ("auto", "llamacpp", "vllm", "ollama")
#: Seconds to wait for one answer.
TIMEOUT = 30.0
#: Most bytes of an answer read (a probe's prompt is a few kilobytes).
_MAX_ANSWER = 16 * 1024 * 1024
#: The statuses of a key missing or refused.
_KEY_STATUSES = (401, 403)


class HTTPFailure(DoctorError):
    """The server answered an HTTP error status (``status``)."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


class Unreachable(DoctorError):
    """No answer from the server."""


def root(url: str) -> str:
    """``url`` without a trailing slash or OpenAI-style ``/v1``."""
    base = url.rstrip("/")
    return base[: -len("/v1")] if base.endswith("/v1") else base


def _error_message(raw: bytes) -> str:
    """The message of an error answer, short and quoted, or its first bytes."""
    try:
        data = json.loads(raw)
    except ValueError:
        data = None
    if isinstance(data, dict):
        found = data.get("error", data)
        if isinstance(found, dict):
            found = found.get("message", found.get("detail"))
        if isinstance(found, str):
            return quote(found)
    return quote(raw[:200].decode("utf-8", "replace"))


def _check_key(api_key: str | None) -> None:
    """A :class:`DoctorError` for a key an HTTP header cannot carry (the key not shown)."""
    problem = backend_key_problem(api_key, "api_key")
    if problem is not None:
        raise DoctorError(problem)


def _headers(api_key: str | None) -> dict[str, str]:
    """The headers of every request, with the key when there is one."""
    _check_key(api_key)
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    if api_key is not None:
        headers["Authorization"] = f"Bearer {api_key}"
    return headers


def _refused(status: int, api_key: str | None) -> str:
    """What an error status says about the key (empty: nothing)."""
    if status not in _KEY_STATUSES:
        return ""
    if api_key is None:
        return f"; the server wants an API key: give --backend-api-key or set {BACKEND_KEY_ENV}"
    return f"; the server refused the key (--backend-api-key or {BACKEND_KEY_ENV})"


def _call(endpoint: str, body: dict[str, Any] | None, timeout: float, api_key: str | None) -> Any:
    data = None if body is None else json.dumps(body).encode("utf-8")
    request = urllib.request.Request(
        endpoint, data=data, headers=_headers(api_key), method="GET" if body is None else "POST"
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            raw = answer.read(_MAX_ANSWER)
    except urllib.error.HTTPError as exc:
        raw = exc.read(4096)
        if api_key is not None:  # a server that echoes it back: not shown
            raw = raw.replace(api_key.encode("ascii"), b"<the key>")
        message = _error_message(raw) + _refused(exc.code, api_key)
        raise HTTPFailure(f"{endpoint} answered {exc.code}: {message}", exc.code) from None
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        raise Unreachable(f"cannot reach {endpoint}: {reason}") from None
    try:
        return json.loads(raw)
    except ValueError:
        raise DoctorError(f"{endpoint} did not answer JSON") from None


def get(url: str, path: str, timeout: float = TIMEOUT, *, api_key: str | None = None) -> Any:
    """The JSON that ``GET url+path`` answers (``url`` taken through :func:`root`);
    ``api_key`` is sent as ``Authorization: Bearer``."""
    return _call(root(url) + path, None, timeout, api_key)


def post(
    url: str,
    path: str,
    body: dict[str, Any],
    timeout: float = TIMEOUT,
    *,
    api_key: str | None = None,
) -> Any:
    """The JSON that ``POST url+path`` with ``body`` answers."""
    return _call(root(url) + path, body, timeout, api_key)


def _answers(url: str, path: str, keys: tuple[str, ...], api_key: str | None) -> bool:
    """``GET path`` answers a JSON object with one of ``keys``."""
    try:
        found = get(url, path, timeout=10.0, api_key=api_key)
    except Unreachable:
        raise
    except HTTPFailure as exc:
        if exc.status in _KEY_STATUSES:  # a key missing or refused: no runtime answers
            raise
        return False  # an error status: another runtime
    except DoctorError:  # not JSON: another runtime
        return False
    return isinstance(found, dict) and any(key in found for key in keys)


def detect(url: str, *, api_key: str | None = None) -> BackendType:
    """Which runtime serves ``url`` (a :class:`DoctorError` when none of the three)."""
    _check_key(api_key)  # (not taken for "another runtime" below)
    if _answers(url, "/props", ("chat_template", "default_generation_settings"), api_key):
        return "llamacpp"
    if _answers(url, "/api/version", ("version",), api_key):
        return "ollama"
    if _answers(url, "/version", ("version",), api_key):
        return "vllm"
    raise DoctorError(
        f"{root(url)} is not a llama.cpp, vLLM or Ollama server (it answers none of "
        "/props, /api/version, /version); give --backend-type if it is one"
    )
