"""Streaming-safe search for literal markers.

Output parsers look for fixed strings (``<think>``, ``Here is my response:``,
``<|tool_call|>``, ...) in text that may arrive in pieces. Two questions come up
again and again:

* where is the earliest of several markers in this text? (:class:`MarkerSearch`), and
* how many characters at the end of the text could still turn into a marker when
  more text arrives? (:func:`partial_marker_length`). Those characters must be held
  back instead of being emitted, or a marker split across two chunks would leak.

Both run in time linear in the text searched (for a fixed set of markers).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import NamedTuple

__all__ = [
    "MarkerMatch",
    "MarkerSearch",
    "Partials",
    "marker_first_chars",
    "marker_pattern",
    "marker_prefixes",
    "partial_in",
    "partial_marker_length",
    "partials",
]


class MarkerMatch(NamedTuple):
    """A marker found at ``start``; ``end`` is the index just after it."""

    start: int
    marker: str

    @property
    def end(self) -> int:
        return self.start + len(self.marker)


class _Prepared(NamedTuple):
    firsts: frozenset[str]  # first characters
    # The markers as one alternation, longest first (None when there are no markers):
    # a search finds the earliest marker, the longest on a tie, in one C-level scan.
    any_marker: re.Pattern[str] | None


@lru_cache(maxsize=256)
def _prepare(markers: tuple[str, ...]) -> _Prepared:
    present = {m for m in markers if m}
    by_length = sorted(present, key=lambda m: (-len(m), m))
    return _Prepared(
        frozenset(m[0] for m in present),
        re.compile("|".join(map(re.escape, by_length))) if by_length else None,
    )


def marker_first_chars(markers: Sequence[str]) -> frozenset[str]:
    """The characters any of ``markers`` begins with (text without them holds no marker)."""
    return _prepare(tuple(markers)).firsts


def marker_pattern(markers: Sequence[str]) -> re.Pattern[str] | None:
    """The markers as one compiled alternation, longest first (``None`` if there are none).

    Its ``search(text, start)`` finds the marker :meth:`MarkerSearch.next` finds, for a
    scanner that runs one search per marker and needs no :class:`MarkerMatch`.
    """
    return _prepare(tuple(markers)).any_marker


@lru_cache(maxsize=256)
def _prefixes(markers: tuple[str, ...]) -> frozenset[str]:
    present = [m for m in markers if m]
    return frozenset(
        prefix
        for marker in present
        for prefix in (marker[:size] for size in range(1, len(marker)))
        if not any(other in prefix for other in present)
    )


def marker_prefixes(markers: Sequence[str]) -> frozenset[str]:
    """The proper prefixes of ``markers`` that hold none of them.

    A scan for ``markers`` finds no marker in such a text, and
    :func:`partial_marker_length` holds all of it back: a stage whose pending text
    would become one of them can keep it pending without scanning.
    """
    return _prefixes(tuple(markers))


class MarkerSearch:
    """Earliest-marker searches over one text.

    Each search is one scan by a compiled alternation of the markers (longest first),
    from ``start`` to the first marker found; callers move ``start`` past what they
    consumed, so successive searches over one text cost linear time in total.
    """

    __slots__ = ("_pattern", "text")

    def __init__(self, text: str, markers: Sequence[str]) -> None:
        self.text = text
        # Longer markers first, so that on a tie (one marker a prefix of another at the
        # same position) the longer one wins.
        self._pattern = _prepare(tuple(markers)).any_marker

    def next(self, start: int = 0, end: int | None = None) -> MarkerMatch | None:
        """The earliest marker beginning at or after ``start`` and ending by ``end``."""
        pattern = self._pattern
        if pattern is None:
            return None
        text = self.text
        found = pattern.search(text, start, len(text) if end is None else end)
        if found is None:
            return None
        return MarkerMatch(found.start(), found.group())


#: What :func:`partial_in` needs of some markers: a pattern finding their first
#: characters (``None`` without markers), their proper prefixes, the longest's length.
Partials = tuple[re.Pattern[str] | None, frozenset[str], int]


@lru_cache(maxsize=64)
def partials(markers: tuple[str, ...]) -> Partials:
    """The :data:`Partials` of ``markers`` (made once per marker set)."""
    firsts = sorted({marker[0] for marker in markers if marker})
    first = re.compile("[" + "".join(map(re.escape, firsts)) + "]") if firsts else None
    prefixes = frozenset(marker[:size] for marker in markers for size in range(1, len(marker)))
    return first, prefixes, max(map(len, markers), default=0)


def partial_in(text: str, pos: int, partials: Partials) -> int:
    """Length of the longest suffix of ``text[pos:]`` that is a proper prefix of one of
    the markers of ``partials``."""
    first, prefixes, longest = partials
    if first is None:
        return 0
    size = len(text)
    found = first.search(text, max(pos, size - longest + 1))
    while found is not None:
        start = found.start()
        if text[start:] in prefixes:  # (the earliest is the longest)
            return size - start
        found = first.search(text, start + 1)
    return 0


def partial_marker_length(text: str, markers: Sequence[str], start: int = 0) -> int:
    """How many characters at the end of ``text[start:]`` could begin a marker.

    Returns the largest ``k`` such that ``text[-k:]`` is a proper prefix of one of
    ``markers`` (a complete marker is not "partial": find it with
    :class:`MarkerSearch`). Only the last ``max(len(marker)) - 1`` characters are
    examined, so the cost does not depend on the length of ``text``.
    """
    return partial_in(text, start, partials(tuple(markers)))
