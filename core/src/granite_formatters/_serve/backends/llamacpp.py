"""llama.cpp's native ``/completion`` endpoint (SSE of ``content``/``stop`` objects)."""

from __future__ import annotations

from typing import Any

from .base import Backend, Decoding, clean_text, loads_object, stop_reason_of, usage_of
from .logprobs import chat_entries

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

    def body(
        self, prompt: str, model: str, fields: dict[str, Any], stream: bool = True
    ) -> dict[str, Any]:
        return {"prompt": prompt, "stream": stream, **fields}

    def decoding(self) -> Decoding:
        return _CompletionEvents()


class _CompletionEvents(Decoding):
    """``/completion`` events: ``content`` pieces, the last one with ``stop`` (an answer
    not streamed is that last one, with the whole ``content`` and its probabilities)."""

    def __init__(self) -> None:
        super().__init__()
        self._first = True

    def step(self, data: str, texts: list[str], logprobs: list[dict[str, Any]]) -> None:
        if not data:
            return
        chunk = loads_object(data, "JSON (/completion)")
        text = chunk.get("content")
        stop = chunk.get("stop") is True
        # (after other events, the last one's probabilities are the whole answer's again)
        again = stop and not text and not self._first
        self._first = False
        entries = () if again else chat_entries(chunk.get("completion_probabilities"))
        if isinstance(text, str) and (text or entries):
            texts.append(clean_text(text))
            logprobs.extend(entries)
        if stop:
            limited = chunk.get("stop_type") == "limit" or chunk.get("stopped_limit") is True
            self.reason = "length" if limited else "stop"
            self.usage = usage_of(chunk.get("tokens_evaluated"), chunk.get("tokens_predicted"))
            self.stop = None if limited else stop_reason_of(chunk.get("stopping_word"))
            self.complete = True
