"""Token logprobs as backends send them, read into OpenAI's chat ``logprobs.content`` form.

Three shapes reach the server: the legacy completions shape (parallel ``tokens``,
``token_logprobs``, ``top_logprobs`` lists: vLLM's ``/v1/completions``), the chat shape
(a ``content`` list of ``{"token", "logprob", "bytes", "top_logprobs"}``: llama.cpp's
``/v1/completions``, and, with an ``id`` added, its native ``completion_probabilities``),
and llama.cpp's native shape before late 2024 (``{"content", "probs": [{"tok_str",
"prob"}]}``, probabilities rather than logprobs).
"""

from __future__ import annotations

import math
from typing import Any

from .base import clean_text, finite

__all__ = ["chat_entries", "choice_logprobs"]


def _token(value: Any) -> str:
    return clean_text(value) if isinstance(value, str) else str(value)


def _bytes(value: Any, token: str) -> list[int]:
    if isinstance(value, list) and all(
        isinstance(b, int) and not isinstance(b, bool) and 0 <= b < 256 for b in value
    ):
        return value
    return list(token.encode())


def _entry(token: str, logprob: Any, raw_bytes: Any = None) -> dict[str, Any]:
    number = None
    if isinstance(logprob, (int, float)) and not isinstance(logprob, bool):
        number = logprob
    return {"token": token, "logprob": finite(number), "bytes": _bytes(raw_bytes, token)}


def _log(probability: Any) -> float | None:
    if not isinstance(probability, (int, float)) or isinstance(probability, bool):
        return None
    return math.log(probability) if probability > 0 else -9999.0


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _legacy(data: dict[str, Any]) -> tuple[dict[str, Any], ...]:
    tokens = _list(data.get("tokens"))
    values = _list(data.get("token_logprobs"))
    tops = _list(data.get("top_logprobs"))
    out = []
    for i, raw in enumerate(tokens):
        top = tops[i] if i < len(tops) and isinstance(tops[i], dict) else {}
        entry = _entry(_token(raw), values[i] if i < len(values) else None)
        entry["top_logprobs"] = [_entry(_token(t), lp) for t, lp in top.items()]
        out.append(entry)
    return tuple(out)


def chat_entries(items: Any) -> tuple[dict[str, Any], ...]:
    """Chat-shape entries (``token``/``logprob``/``top_logprobs``), or llama.cpp's older
    ``content``/``probs`` ones, in chat form; anything else is skipped."""
    if not isinstance(items, list):
        return ()
    out = []
    for item in items:
        if not isinstance(item, dict):
            continue
        if "probs" in item and "logprob" not in item:  # llama.cpp before the chat shape
            token = _token(item.get("content", ""))
            probs = [p for p in _list(item.get("probs")) if isinstance(p, dict)]
            mine = next((p.get("prob") for p in probs if p.get("tok_str") == token), None)
            entry = _entry(token, _log(mine))
            entry["top_logprobs"] = [
                _entry(_token(p.get("tok_str", "")), _log(p.get("prob"))) for p in probs
            ]
        else:
            entry = _entry(_token(item.get("token", "")), item.get("logprob"), item.get("bytes"))
            entry["top_logprobs"] = [
                _entry(_token(t.get("token", "")), t.get("logprob"), t.get("bytes"))
                for t in _list(item.get("top_logprobs"))
                if isinstance(t, dict)
            ]
        out.append(entry)
    return tuple(out)


def choice_logprobs(data: Any) -> tuple[dict[str, Any], ...]:
    """A ``/v1/completions`` choice's ``logprobs``, in either shape, in chat form."""
    if not isinstance(data, dict):
        return ()
    if isinstance(data.get("content"), list):
        return chat_entries(data["content"])
    return _legacy(data)
