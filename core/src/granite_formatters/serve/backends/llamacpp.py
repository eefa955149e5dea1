"""llama.cpp's native ``/completion`` endpoint (SSE of ``content``/``stop`` objects)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
from httpx_sse import EventSource

from ..params import GenerationParams
from .base import Backend, Finish, Piece, Usage, loads_object, usage_int

__all__ = ["LlamaCppBackend"]


class LlamaCppBackend(Backend):
    path = "/completion"

    def body(self, prompt: str, model: str, params: GenerationParams) -> dict[str, Any]:
        return {"prompt": prompt, "stream": True, **params.sampling("n_predict")}

    async def events(self, response: httpx.Response) -> AsyncIterator[Piece | Finish]:
        events = EventSource(response).aiter_sse()
        async for sse in events:
            if not sse.data:
                continue
            chunk = loads_object(sse.data, "a /completion stream event")
            text = chunk.get("content")
            if isinstance(text, str) and text:
                yield Piece(text)
            if chunk.get("stop") is True:
                limited = chunk.get("stop_type") == "limit" or chunk.get("stopped_limit") is True
                usage = Usage(
                    usage_int(chunk.get("tokens_evaluated")),
                    usage_int(chunk.get("tokens_predicted")),
                )
                yield Finish("length" if limited else "stop", usage)
                async for _ in events:  # read to the end so the connection is reused
                    pass
                return
        raise self.ended_early()
