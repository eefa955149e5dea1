"""The parser's marked stage, for reasoning that may start anywhere (a
:class:`~granite_formatters.syntax.MarkedReasoningSyntax`) and tokens dropped
everywhere: its states, the markers it searches in each (as patterns and first
characters), what the parser may hold back while its cited lane is open, and the words
of its notes.
"""

from __future__ import annotations

import re
from functools import lru_cache

from ._markers import Partials, marker_pattern, partial_in, partials

__all__ = [
    "AFTER",
    "BEFORE",
    "INSIDE",
    "OFF",
    "PASS",
    "hold_tables",
    "lane_firsts",
    "marked_tables",
    "reasoning_unclosed",
    "stray_end_removed",
]

#: The states of the marked stage: off, before any reasoning, inside it, after it, past
#: a tool call (only the dropped tokens are still removed).
OFF, BEFORE, INSIDE, AFTER, PASS = range(5)
_BLANKS = " \t\n\r\f\v"


def stray_end_removed(marker: str, offset: int) -> str:
    """The note for an end ``marker`` at ``offset`` removed with no reasoning opened."""
    return f"removed {marker} at offset {offset}: no reasoning was opened before it"


def reasoning_unclosed(close: str) -> str:
    """The note for reasoning that the output ends inside (``close`` never came)."""
    return f"the reasoning has no end marker {close}; kept as reasoning"


@lru_cache(maxsize=64)
def marked_tables(
    starts: tuple[str, ...],
    ends: tuple[str, ...],
    tags: tuple[str, ...],
    stray: tuple[str, ...],
    stoppers: tuple[str, ...],
    drops: tuple[str, ...],
) -> tuple[
    tuple[tuple[str, ...], ...],
    tuple[re.Pattern[str] | None, ...],
    tuple[frozenset[str], ...],
]:
    """The parser's marked stage (reasoning anywhere, dropped tokens): the markers it
    searches in each state (:data:`OFF` … :data:`PASS`), as patterns, and their first
    characters (made once per release and request shape). ``stray`` are end markers
    removed with no reasoning opened, ``stoppers`` open a tool call (marker processing
    stops), ``drops`` are removed everywhere."""
    markers = tuple(
        tuple(dict.fromkeys(each))
        for each in (
            (),
            starts + tags + drops + stray + stoppers,
            ends + drops,
            tags + drops + stoppers,
            drops,
        )
    )
    patterns = tuple(map(marker_pattern, markers))
    return markers, patterns, tuple(frozenset(marker[0] for marker in each) for each in markers)


@lru_cache(maxsize=64)
def lane_firsts(
    every: tuple[str, ...], marked: tuple[frozenset[str], ...] | None
) -> tuple[frozenset[str], ...]:
    """The characters that need the scans of the content parser (the first characters of
    ``every`` marker) and of the marked stage in each of its states (``marked``; ``None``
    when it is off)."""
    firsts = frozenset(marker[0] for marker in every)
    if marked is None:
        return (firsts,) * 5
    return tuple(firsts | each for each in marked)


@lru_cache(maxsize=64)
def hold_tables(
    marked: tuple[tuple[str, ...], ...], every: tuple[str, ...], stages: frozenset[str]
) -> tuple[tuple[frozenset[str], ...], tuple[re.Pattern[str], frozenset[str], int] | None]:
    """What the parser's feed may hold back whole while its cited lane is open, in each
    state of the marked stage (whose markers in each state are ``marked``), and a search
    for a chunk's end that may be held in some state (its first characters, the texts,
    the longest's length; ``None`` when there are none).

    A text may be held when it holds no whitespace and the pipeline would keep it whole,
    nothing passed on: the marked stage keeps all of it (the beginning of one of its
    markers), or passes all of it on and the content parser (markers ``every``) keeps
    all of it, or passes all of it on and the citation stages keep it (``stages``)."""
    content = marker_pattern(every), partials(every)

    def kept(text: str, pattern: re.Pattern[str] | None, partials: Partials) -> bool | None:
        # True: kept whole; False: passed on whole; None: a marker or part of one.
        if pattern is not None and pattern.search(text) is not None:
            return None
        kept = partial_in(text, 0, partials)
        return True if kept == len(text) else False if not kept else None

    sets = []
    for markers in marked:
        own = marker_pattern(markers), partials(markers)
        found = set()
        for text in {*own[1][1], *content[1][1], *stages}:
            if not text or any(space in text for space in _BLANKS):
                continue
            decided = kept(text, *own)
            if decided is False:
                decided = kept(text, *content)
                if decided is False:
                    decided = text in stages
            if decided:
                found.add(text)
        sets.append(frozenset(found))
    every_set = frozenset().union(*sets)
    if not every_set:
        return tuple(sets), None
    firsts = "".join(sorted({re.escape(text[0]) for text in every_set}))
    return tuple(sets), (re.compile(f"[{firsts}]"), every_set, max(map(len, every_set)))
