"""llama.cpp's native ``/completion`` endpoint (SSE of ``content``/``stop`` objects)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx

from .base import (
    Backend,
    Finish,
    Piece,
    clean_text,
    drain,
    loads_object,
    stop_reason_of,
    usage_of,
)
from .logprobs import chat_entries
from .sse import sse_data

__all__ = ["LlamaCppBackend"]


class LlamaCppBackend(Backend):
    """``/completion``: without a client token limit none is sent, and llama.cpp's
    ``n_predict`` default of -1 generates until the answer or the context ends.

    The release's special tokens are sent as ``preserved_tokens``, which llama-server
    prints as text for that request (it prints control tokens otherwise only when started
    with ``--special``); logprobs are asked for with ``n_probs`` and read from each
    event's ``completion_probabilities``."""

    kind = "llamacpp"
    path = "/completion"
    supports_logprobs = True
    special_tokens_advice = (
        "llama-server removed them although serve asked for them per request "
        "(preserved_tokens, which older llama.cpp versions ignore): start llama-server "
        "with --special"
    )

    def body(self, prompt: str, model: str, fields: dict[str, Any]) -> dict[str, Any]:
        return {"prompt": prompt, "stream": True, **fields}

    async def events(self, response: httpx.Response) -> AsyncIterator[Piece | Finish]:
        events = sse_data(response)
        async for data in events:
            if not data:
                continue
            chunk = loads_object(data, "a /completion stream event")
            text = chunk.get("content")
            logprobs = chat_entries(chunk.get("completion_probabilities"))
            if chunk.get("stop") is True and not text:  # (not the whole answer's again)
                logprobs = ()
            if isinstance(text, str) and (text or logprobs):
                yield Piece(clean_text(text), logprobs)
            if chunk.get("stop") is True:
                limited = chunk.get("stop_type") == "limit" or chunk.get("stopped_limit") is True
                usage = usage_of(chunk.get("tokens_evaluated"), chunk.get("tokens_predicted"))
                word = None if limited else stop_reason_of(chunk.get("stopping_word"))
                yield Finish("length" if limited else "stop", usage, word)
                await drain(events)
                return
        raise self.ended_early()
