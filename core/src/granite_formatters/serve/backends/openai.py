"""An OpenAI-compatible ``/v1/completions`` server (vLLM, SGLang, TGI, llama.cpp's OpenAI route)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
from httpx_sse import EventSource

from ..params import GenerationParams
from .base import Backend, Finish, Piece, Usage, loads_object, usage_int

__all__ = ["OpenAIBackend"]


def chat_logprobs(data: Any) -> tuple[dict[str, Any], ...]:
    """Completions-style logprobs (parallel lists) in the chat ``logprobs.content`` shape."""
    if not isinstance(data, dict):
        return ()
    tokens = data.get("tokens") or []
    values = data.get("token_logprobs") or []
    tops = data.get("top_logprobs") or []
    out = []
    for i, token in enumerate(tokens):
        top = tops[i] if i < len(tops) and isinstance(tops[i], dict) else {}
        out.append(
            {
                "token": token,
                "logprob": values[i] if i < len(values) else None,
                "bytes": list(str(token).encode()),
                "top_logprobs": [
                    {"token": t, "logprob": lp, "bytes": list(str(t).encode())}
                    for t, lp in top.items()
                ],
            }
        )
    return tuple(out)


class OpenAIBackend(Backend):
    path = "/completions"
    supports_logprobs = True

    def body(self, prompt: str, model: str, params: GenerationParams) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": model,
            "prompt": prompt,
            "stream": True,
            "stream_options": {"include_usage": True},
            # The Granite tool-call and citation markers are special tokens: keep them.
            "skip_special_tokens": False,
            "spaces_between_special_tokens": False,
            **params.sampling("max_tokens"),
        }
        if params.logprobs:
            body["logprobs"] = params.top_logprobs or 0
        return body

    async def events(self, response: httpx.Response) -> AsyncIterator[Piece | Finish]:
        reason: str | None = None
        usage: Usage | None = None
        events = EventSource(response).aiter_sse()
        async for sse in events:
            if sse.data == "[DONE]":
                yield Finish("length" if reason == "length" else "stop", usage)
                async for _ in events:  # read to the end so the connection is reused
                    pass
                return
            if not sse.data:
                continue
            chunk = loads_object(sse.data, "a completions stream event")
            if isinstance(chunk.get("usage"), dict):
                u = chunk["usage"]
                usage = Usage(
                    usage_int(u.get("prompt_tokens")), usage_int(u.get("completion_tokens"))
                )
            for choice in chunk.get("choices") or []:
                if not isinstance(choice, dict):
                    continue
                text = choice.get("text")
                logprobs = chat_logprobs(choice.get("logprobs"))
                if isinstance(text, str) and (text or logprobs):
                    yield Piece(text, logprobs)
                if choice.get("finish_reason"):
                    reason = str(choice["finish_reason"])
        raise self.ended_early()
