"""What every backend adapter shares: the events it yields, its errors, and sending the request."""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator
from typing import Any

import attrs
import httpx
from httpx_sse import SSEError

from ..params import GRANITE_STOP, GenerationParams

__all__ = [
    "GRANITE_STOP",
    "Backend",
    "BackendError",
    "Finish",
    "Piece",
    "Usage",
    "loads_object",
]


@attrs.frozen
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def to_openai(self) -> dict[str, int]:
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.prompt_tokens + self.completion_tokens,
        }


@attrs.frozen
class Piece:
    """A piece of generated text (and, where the backend gives them, its token logprobs)."""

    text: str
    logprobs: tuple[dict[str, Any], ...] = ()


@attrs.frozen
class Finish:
    """The backend finished: ``reason`` is ``"length"`` (token limit) or ``"stop"``."""

    reason: str
    usage: Usage | None = None


class BackendError(Exception):
    """The backend failed; ``status`` is the HTTP status to answer with (502 or 504)."""

    def __init__(self, message: str, status: int = 502) -> None:
        super().__init__(message)
        self.status = status


def loads_object(data: str, what: str) -> dict[str, Any]:
    """One JSON object from the backend, or a :class:`BackendError` naming what was wrong."""
    try:
        value = json.loads(data)
    except ValueError:
        raise BackendError(f"the backend sent malformed {what}: {data[:80]!r}") from None
    if not isinstance(value, dict):
        raise BackendError(f"the backend sent malformed {what}: not a JSON object")
    if "error" in value and not any(k in value for k in ("choices", "content", "response")):
        error = value["error"]
        detail = error.get("message") if isinstance(error, dict) else error
        raise BackendError(f"the backend reported an error: {str(detail)[:200]}")
    return value


def usage_int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


class Backend(ABC):
    """One kind of completions server: the request it takes and the stream it answers with."""

    #: The path under the configured base URL.
    path: str
    #: Whether the backend can return token logprobs through this adapter.
    supports_logprobs = False

    def __init__(self, base_url: str) -> None:
        self.url = base_url.rstrip("/") + self.path

    @abstractmethod
    def body(self, prompt: str, model: str, params: GenerationParams) -> dict[str, Any]:
        """The JSON body of a streaming generation request."""

    @abstractmethod
    def events(self, response: httpx.Response) -> AsyncIterator[Piece | Finish]:
        """The pieces of text, then one :class:`Finish`; a :class:`BackendError` when the
        stream is malformed; a stream that ends without finishing raises too."""

    async def open(
        self, client: httpx.AsyncClient, prompt: str, model: str, params: GenerationParams
    ) -> httpx.Response:
        """Send the request and check the status; the caller must ``aclose()`` the response."""
        request = client.build_request("POST", self.url, json=self.body(prompt, model, params))
        try:
            response = await client.send(request, stream=True)
        except httpx.TimeoutException:
            raise BackendError("the backend did not answer in time", 504) from None
        except httpx.HTTPError as exc:
            raise BackendError(f"cannot reach the backend at {self.url}: {exc}") from None
        if response.status_code >= 400:
            try:
                detail = (await response.aread())[:300].decode("utf-8", "replace")
            except httpx.HTTPError:
                detail = ""
            finally:
                await response.aclose()
            raise BackendError(
                f"the backend answered HTTP {response.status_code}: {detail.strip()}"
            )
        return response

    async def stream(self, response: httpx.Response) -> AsyncIterator[Piece | Finish]:
        """:meth:`events`, with transport failures turned into :class:`BackendError`."""
        try:
            async for event in self.events(response):
                yield event
        except httpx.TimeoutException:
            raise BackendError("the backend stopped sending (timed out)", 504) from None
        except SSEError as exc:
            raise BackendError(f"the backend did not answer with an event stream: {exc}") from None
        except httpx.HTTPError as exc:
            raise BackendError(f"the backend connection failed: {exc}") from None

    @staticmethod
    def ended_early() -> BackendError:
        return BackendError("the backend stream ended before the answer was complete")
