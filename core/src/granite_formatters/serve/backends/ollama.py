"""Ollama's ``/api/generate`` with ``raw: true`` (the prompt is sent as is; NDJSON stream)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx

from ..params import GenerationParams
from .base import Backend, Finish, Piece, Usage, loads_object, usage_int

__all__ = ["OllamaBackend"]


async def ndjson_lines(response: httpx.Response) -> AsyncIterator[str]:
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
    path = "/api/generate"

    def body(self, prompt: str, model: str, params: GenerationParams) -> dict[str, Any]:
        options = params.sampling("num_predict")
        return {"model": model, "prompt": prompt, "raw": True, "stream": True, "options": options}

    async def events(self, response: httpx.Response) -> AsyncIterator[Piece | Finish]:
        lines = ndjson_lines(response)
        async for line in lines:
            if not line.strip():
                continue
            chunk = loads_object(line, "an /api/generate stream line")
            text = chunk.get("response")
            if isinstance(text, str) and text:
                yield Piece(text)
            if chunk.get("done") is True:
                usage = Usage(
                    usage_int(chunk.get("prompt_eval_count")), usage_int(chunk.get("eval_count"))
                )
                yield Finish("length" if chunk.get("done_reason") == "length" else "stop", usage)
                async for _ in lines:  # read to the end so the connection is reused
                    pass
                return
        raise self.ended_early()
