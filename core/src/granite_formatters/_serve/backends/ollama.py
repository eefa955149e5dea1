"""Ollama's ``/api/generate`` with ``raw: true`` (the prompt is sent as is; NDJSON stream)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx

from .base import Backend, Finish, Piece, clean_text, drain, loads_object, usage_of

__all__ = ["OllamaBackend"]


async def _ndjson_lines(response: httpx.Response) -> AsyncIterator[str]:
    """The stream's lines, split at ``\n`` only (JSON text may hold U+0085 or U+2028 raw,
    which ``str.splitlines`` and so ``httpx``'s ``aiter_lines`` would split at)."""
    pending: list[bytes] = []
    async for data in response.aiter_bytes():
        *ends, rest = data.split(b"\n")
        for end in ends:
            pending.append(end)
            yield b"".join(pending).decode("utf-8", "replace")
            pending = []
        pending.append(rest)
    if any(pending):
        yield b"".join(pending).decode("utf-8", "replace")


class OllamaBackend(Backend):
    """``/api/generate`` in raw mode: without a client token limit none is sent, and
    Ollama's ``num_predict`` default of -1 generates until the answer or the context ends."""

    kind = "ollama"
    special_tokens_advice = (
        "Ollama has no option to keep them: serve the model through vLLM, or llama.cpp "
        "with --backend-type llamacpp"
    )
    path = "/api/generate"

    def body(self, prompt: str, model: str, fields: dict[str, Any]) -> dict[str, Any]:
        return {"model": model, "prompt": prompt, "raw": True, "stream": True, **fields}

    async def events(self, response: httpx.Response) -> AsyncIterator[Piece | Finish]:
        lines = _ndjson_lines(response)
        async for line in lines:
            if not line.strip():
                continue
            chunk = loads_object(line, "an /api/generate stream line")
            text = chunk.get("response")
            if isinstance(text, str) and text:
                yield Piece(clean_text(text))
            if chunk.get("done") is True:
                usage = usage_of(chunk.get("prompt_eval_count"), chunk.get("eval_count"))
                yield Finish("length" if chunk.get("done_reason") == "length" else "stop", usage)
                await drain(lines)
                return
        raise self.ended_early()
