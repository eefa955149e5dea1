"""The excerpt of model text that a parser note quotes."""

from __future__ import annotations

__all__ = ["excerpt"]

_NOTE_TEXT_LIMIT = 60


def excerpt(text: str) -> str:
    """``text`` on one line, cut to a few words, quoted (for notes)."""
    text = " ".join(text.split())
    return repr(text if len(text) <= _NOTE_TEXT_LIMIT else text[: _NOTE_TEXT_LIMIT - 3] + "...")
