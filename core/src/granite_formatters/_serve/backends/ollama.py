"""Ollama's ``/api/generate`` with ``raw: true`` (the prompt is sent as is; NDJSON stream)."""

from __future__ import annotations

from typing import Any

import httpx

from .base import Backend, Decoding, Frames, clean_text, loads_object, usage_of

__all__ = ["OllamaBackend"]


class _Lines:
    """A body's lines, split at ``\n`` only (JSON text may hold U+0085 or U+2028 raw,
    which ``str.splitlines`` and so ``httpx``'s ``aiter_lines`` would split at)."""

    def __init__(self) -> None:
        self._pending: list[bytes] = []

    def feed(self, block: bytes) -> list[str]:
        *ends, rest = block.split(b"\n")
        lines = []
        for end in ends:
            self._pending.append(end)
            lines.append(b"".join(self._pending).decode("utf-8", "replace"))
            self._pending = []
        self._pending.append(rest)
        return lines

    def end(self) -> list[str]:
        rest = b"".join(self._pending)
        self._pending = []
        return [rest.decode("utf-8", "replace")] if rest else []


class OllamaBackend(Backend):
    """``/api/generate`` in raw mode: without a client token limit none is sent, and
    Ollama's ``num_predict`` default of -1 generates until the answer or the context ends."""

    kind = "ollama"
    special_tokens_advice = (
        "Ollama has no option to keep them: serve the model through vLLM, or llama.cpp "
        "with --backend-type llamacpp"
    )
    path = "/api/generate"

    def body(
        self, prompt: str, model: str, fields: dict[str, Any], stream: bool = True
    ) -> dict[str, Any]:
        return {"model": model, "prompt": prompt, "raw": True, "stream": stream, **fields}

    def frames(self) -> Frames:
        return _Lines()

    def check(self, response: httpx.Response) -> None:
        """Any stream is read as lines (Ollama names it ``application/x-ndjson``)."""

    def decoding(self) -> Decoding:
        return _GenerateLines()


class _GenerateLines(Decoding):
    """``/api/generate`` lines: ``response`` pieces, the last one with ``done`` (an answer
    not streamed is that last one, with the whole ``response``)."""

    def step(self, data: str, texts: list[str], logprobs: list[dict[str, Any]]) -> None:
        if not data.strip():
            return
        chunk = loads_object(data, "JSON (/api/generate)")
        text = chunk.get("response")
        if isinstance(text, str) and text:
            texts.append(clean_text(text))
        if chunk.get("done") is True:
            self.usage = usage_of(chunk.get("prompt_eval_count"), chunk.get("eval_count"))
            self.reason = "length" if chunk.get("done_reason") == "length" else "stop"
            self.complete = True
