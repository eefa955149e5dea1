"""Which reference template a template's text is: exact, whitespace only, or drifted.

The package ships no official templates (they are the tests' oracle, not data), so the
references are a folder the user names, or ``$GRANITE_FORMATTERS_SHARED/chat-templates``
when that is set: every ``*.jinja`` file under it, named by its path in the folder.
References with identical texts (Granite 4.1 and 4.0's 2025-10 revision) make a match
``ambiguous``: all their names are given.
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

import attrs

__all__ = ["DIFF_LINES", "TextMatch", "Verdict", "compare", "reference_folder", "references"]

Verdict = Literal["exact", "whitespace", "drifted", "ambiguous"]

_SPACE = re.compile(r"\s+")

#: At most this many diff lines are kept for a drifted match.
DIFF_LINES = 40


@attrs.frozen
class TextMatch:
    """The nearest reference(s) to a template text and how it differs."""

    verdict: Verdict
    references: tuple[str, ...]
    similarity: float
    diff: tuple[str, ...] = ()


def reference_folder(given: str | None) -> Path | None:
    """The folder of reference templates: ``given``, else the shared folder, else none."""
    if given is not None:
        return Path(given)
    shared = os.environ.get("GRANITE_FORMATTERS_SHARED")
    if shared and (Path(shared) / "chat-templates").is_dir():
        return Path(shared) / "chat-templates"
    return None


def references(folder: Path) -> dict[str, str]:
    """Every ``*.jinja`` file under ``folder``, by its path relative to it."""
    return {
        path.relative_to(folder).as_posix(): path.read_text(encoding="utf-8")
        for path in sorted(folder.rglob("*.jinja"))
    }


def _squeezed(text: str) -> str:
    return _SPACE.sub("", text)


def compare(text: str, known: dict[str, str]) -> TextMatch | None:
    """How ``text`` matches the nearest of ``known`` (``None`` when there are none)."""
    if not known:
        return None
    exact = tuple(name for name, ref in known.items() if ref == text)
    if exact:
        return TextMatch("exact" if len(exact) == 1 else "ambiguous", exact, 1.0)
    squeezed = _squeezed(text)
    same = tuple(name for name, ref in known.items() if _squeezed(ref) == squeezed)
    if same:
        return TextMatch("whitespace", same, 1.0, _diff(known[same[0]], text, same[0]))
    lines = text.splitlines(keepends=True)
    scores: dict[str, float] = {}
    for name, ref in known.items():
        matcher = difflib.SequenceMatcher(None, ref.splitlines(keepends=True), lines, False)
        scores[name] = matcher.ratio()
    best = max(scores.values())
    nearest = tuple(name for name, score in scores.items() if score == best)
    return TextMatch("drifted", nearest, best, _diff(known[nearest[0]], text, nearest[0]))


def _diff(reference: str, text: str, name: str) -> tuple[str, ...]:
    lines = difflib.unified_diff(
        reference.splitlines(),
        text.splitlines(),
        fromfile=name,
        tofile="this template",
        lineterm="",
        n=1,
    )
    return _cut(list(lines), DIFF_LINES)


def _cut(lines: Sequence[str], limit: int) -> tuple[str, ...]:
    if len(lines) <= limit:
        return tuple(lines)
    return (*lines[:limit], f"... ({len(lines) - limit} more diff lines)")
