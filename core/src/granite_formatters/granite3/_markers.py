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

__all__ = ["MarkerMatch", "MarkerSearch", "partial_marker_length"]


class MarkerMatch(NamedTuple):
    """A marker found at ``start``; ``end`` is the index just after it."""

    start: int
    marker: str

    @property
    def end(self) -> int:
        return self.start + len(self.marker)


class _Prepared(NamedTuple):
    by_length: tuple[str, ...]  # longest first
    firsts: frozenset[str]  # first characters
    longest: int
    # Finds the next character that can begin a marker (None when there are no markers):
    # text without such a character holds no marker and no partial one, which settles
    # most searches of short streamed chunks in one C-level scan.
    first_char: re.Pattern[str] | None


@lru_cache(maxsize=256)
def _prepare(markers: tuple[str, ...]) -> _Prepared:
    present = {m for m in markers if m}
    firsts = frozenset(m[0] for m in present)
    first_char = (
        re.compile("[" + "".join(re.escape(c) for c in sorted(firsts)) + "]") if firsts else None
    )
    return _Prepared(
        tuple(sorted(present, key=lambda m: (-len(m), m))),
        firsts,
        max((len(m) for m in present), default=0),
        first_char,
    )


class MarkerSearch:
    """Repeated earliest-marker searches over one text, in amortised linear time.

    Each marker's next occurrence is remembered, so successive calls with increasing
    ``start`` never rescan text a marker was already known to be absent from. Calling
    :meth:`next` with a ``start`` that is smaller than a previous one is allowed (it
    only costs a fresh search).
    """

    __slots__ = ("_first_char", "_markers", "_next", "text")

    def __init__(self, text: str, markers: Sequence[str]) -> None:
        self.text = text
        prepared = _prepare(tuple(markers))
        # Longer markers first, so that on a tie (one marker a prefix of another at the
        # same position) the longer one wins.
        self._markers = prepared.by_length
        self._first_char = prepared.first_char
        # marker -> (searched_from, found_at); found_at == -1 means "absent after".
        self._next: dict[str, tuple[int, int]] = {}

    def next(self, start: int = 0, end: int | None = None) -> MarkerMatch | None:
        """The earliest marker beginning at or after ``start`` and ending by ``end``."""
        text = self.text
        limit = len(text) if end is None else end
        first_char = self._first_char
        if first_char is None or first_char.search(text, start, limit) is None:
            return None
        best: MarkerMatch | None = None
        for marker in self._markers:
            cached = self._next.get(marker)
            if (
                cached is not None
                and cached[0] <= start
                and (cached[1] == -1 or cached[1] >= start)
            ):
                found = cached[1]
            else:
                found = text.find(marker, start)
                self._next[marker] = (start, found)
            if found == -1 or found + len(marker) > limit:
                continue
            if best is None or found < best.start:
                best = MarkerMatch(found, marker)
        return best


def partial_marker_length(text: str, markers: Sequence[str], start: int = 0) -> int:
    """How many characters at the end of ``text[start:]`` could begin a marker.

    Returns the largest ``k`` such that ``text[-k:]`` is a proper prefix of one of
    ``markers`` (a complete marker is not "partial": find it with
    :class:`MarkerSearch`). Only the last ``max(len(marker)) - 1`` characters are
    examined, so the cost does not depend on the length of ``text``.
    """
    prepared = _prepare(tuple(markers))
    first = max(start, len(text) - prepared.longest + 1)
    if prepared.first_char is None:
        return 0
    found = prepared.first_char.search(text, first)
    if found is None:
        return 0
    firsts = prepared.firsts
    for position in range(found.start(), len(text)):  # the earliest start gives the longest
        if text[position] not in firsts:
            continue
        tail = text[position:]
        for marker in prepared.by_length:
            if len(marker) > len(tail) and marker.startswith(tail):
                return len(text) - position
    return 0
