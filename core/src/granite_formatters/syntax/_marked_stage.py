"""The parser's marked stage, for reasoning that may start anywhere (a
:class:`~granite_formatters.syntax.MarkedReasoningSyntax`) and tokens dropped
everywhere: the stage (:class:`MarkedStage`), its states, the markers it searches in
each (as patterns and first characters), what the parser may hold back while its cited
lane is open, and the words of its notes.

The stage reads the output before the tool-call stage: reasoning from a start marker
anywhere before a tool call to an end marker goes to the reasoning sink, the response
tags and stray end markers are removed (the blanks at the seam of a removed marker not
doubled), the dropped tokens are removed everywhere, and the rest goes on to the
tool-call stage. A partial marker at the end of a chunk is held back. Like the other
stages it is an object the parser (``_engine/parse.py``) holds and feeds, with its own
state; it tells the parser's cited lane what it needs (:meth:`MarkedStage.lane`,
:meth:`MarkedStage.passed`).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

from ._markers import Partials, marker_pattern, partial_in, partials

if TYPE_CHECKING:
    from .._engine.prompt_facts import PromptFacts
    from ..release import Release
    from ._call_stage import CallStage
    from ._protocols import MarkedReasoningSyntax
    from ._reasoning_stage import ReasoningStage

__all__ = [
    "MarkedStage",
    "hold_start",
    "hold_tables",
    "lane_firsts",
    "marked_tables",
    "reasoning_unclosed",
    "stray_end_removed",
]

#: The states of the marked stage: off, before any reasoning, inside it, after it, past
#: a tool call (only the dropped tokens are still removed).
OFF, BEFORE, INSIDE, AFTER, PASS = range(5)
#: Python's ASCII blanks: those at the seam of a removed marker are not doubled.
BLANKS = " \t\n\r\f\v"
# The first character of the content, which a bare body may be.
_NON_BLANK = re.compile(r"[^ \t\n\r\f\v]")


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
    tuple[Partials, ...],
]:
    """The parser's marked stage (reasoning anywhere, dropped tokens): the markers it
    searches in each state (:data:`OFF` … :data:`PASS`), as patterns, their first
    characters and their partials (made once per release and request shape). ``stray``
    are end markers removed with no reasoning opened, ``stoppers`` open a tool call
    (marker processing stops), ``drops`` are removed everywhere."""
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
    firsts = tuple(frozenset(marker[0] for marker in each) for each in markers)
    return markers, patterns, firsts, tuple(map(partials, markers))


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
            if not text or any(space in text for space in BLANKS):
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


def hold_start(chunk: str, tails: tuple[re.Pattern[str], frozenset[str], int]) -> int | None:
    """Where the end of ``chunk`` that may be held back in some state starts (``tails``:
    the search of :func:`hold_tables`), or ``None``. (A chunk longer than any text held
    is not a small chunk of a stream: its end is not looked for, a second pass over it
    would cost more than it saves.)"""
    first, texts, longest = tails
    if len(chunk) > longest:
        return None
    found = first.search(chunk)
    while found is not None:
        start = found.start()
        if chunk[start:] in texts:  # (the earliest is the longest)
            return start
        found = first.search(chunk, start + 1)
    return None


class MarkedStage:
    """The marked stage of the parser (see the module docstring)."""

    __slots__ = (
        "_bare",
        "_calls",
        "_collapse",
        "_drops",
        "_fresh",
        "_last_space",
        "_m_at",
        "_m_lead",
        "_m_partials",
        "_m_patterns",
        "_m_pending",
        "_m_state",
        "_marked_syntax",
        "_notes",
        "_reasoning",
        "_response_tags",
        "_starts",
        "_stoppers",
        "_stray",
        "firsts",
        "markers",
    )

    @classmethod
    def of(
        cls,
        release: Release,
        facts: PromptFacts | None,
        bare: bool,
        calls: CallStage,
        reasoning: ReasoningStage,
        notes: list[str],
    ) -> MarkedStage | None:
        """The stage for an output of ``release`` (``None`` when the release has no
        marked reasoning and drops no token); ``bare``: a bare body may come first.
        Reasoning goes to ``reasoning``, the rest on to ``calls``."""
        if not cls.reads(release):
            return None
        marked = release.reasoning.marked() if release.reasoning is not None else None
        return cls(release, marked, facts, bare, calls, reasoning, notes)

    @staticmethod
    def reads(release: Release) -> bool:
        """Whether the stage reads the outputs of ``release`` (it has marked reasoning or
        drops tokens)."""
        reasoning = release.reasoning
        return bool(release.dropped_tokens) or (
            reasoning is not None and reasoning.marked() is not None
        )

    def __init__(
        self,
        release: Release,
        marked: MarkedReasoningSyntax | None,
        facts: PromptFacts | None,
        bare: bool,
        calls: CallStage,
        reasoning: ReasoningStage,
        notes: list[str],
    ) -> None:
        self._marked_syntax = marked
        self._drops = drops = release.dropped_tokens
        self._calls = calls
        self._reasoning = reasoning
        self._notes = notes
        starts: tuple[str, ...] = ()
        ends: tuple[str, ...] = ()
        tags: tuple[str, ...] = ()
        stray: tuple[str, ...] = ()
        if (
            marked is not None
            and facts is not None
            and not facts.continued  # (the answer continues its content: no reasoning)
            and marked.reads(facts.given)
        ):
            starts = tuple(marked.starts)
            ends = tuple(marked.ends)
            tags = tuple(marked.response_tags)
            if marked.drop_stray_ends:
                stray = ends  # (end markers removed with no reasoning opened)
        syntax = release.tool_calls
        stoppers = (syntax.open, *release.tool_call_markers) if syntax is not None else ()
        self._starts, self._response_tags, self._stray = starts, tags, stray
        self._stoppers = stoppers  # (they open a tool call: marker processing stops)
        #: The markers searched in each state, and their first characters.
        self.markers: tuple[tuple[str, ...], ...]
        self.firsts: tuple[frozenset[str], ...]
        self.markers, self._m_patterns, self.firsts, self._m_partials = marked_tables(
            starts, ends, tags, stray, stoppers, drops
        )
        self._bare = syntax.bare_body if syntax is not None else ""
        self._m_state = BEFORE
        self._m_pending = ""  # a partial marker at the end of the text read
        self._m_at = 0  # the offset of the start of _m_pending in the output
        self._m_lead = bare  # a bare body may come first
        self._fresh = True  # no content but blanks passed on yet
        self._collapse = False  # the blanks next passed on are a removed marker's seam
        self._last_space = True  # whether the content passed on last ended in a blank

    def lane(self) -> int | None:
        """The state whose markers (:attr:`firsts`) a chunk must not hold to pass the
        stage as content unread, or ``None`` while every chunk must be read (inside the
        reasoning, a partial marker pending, a seam to collapse, a bare body to come)."""
        state = self._m_state
        if (
            state == INSIDE
            or self._m_pending
            or self._collapse
            or (self._m_lead and self._fresh and state == BEFORE)
        ):
            return None
        return state

    def passed(self, taken: list[str], size: int) -> None:
        """``taken`` (``size`` characters) passed the stage as content unread while
        :meth:`lane` allowed it: its bookkeeping."""
        self._m_at += size
        self._last_space = taken[-1][-1] in BLANKS
        if self._fresh and any(piece.strip(BLANKS) for piece in taken):
            self._fresh = False

    def read(self, text: str, final: bool = False) -> None:
        """Read ``text`` (see the module docstring); a partial marker at its end is held
        back unless ``final``."""
        state = self._m_state
        if (
            not self._m_pending
            and not self._collapse
            and self.firsts[state].isdisjoint(text)
            and not (self._m_lead and self._fresh and state == BEFORE)
        ):
            # The steady case: no marker of this state can start in ``text``.
            self._m_emit(text)
            self._m_at += len(text)
            return
        if self._m_pending:
            text = self._m_pending + text
            self._m_pending = ""
        pos = 0
        size = len(text)
        while True:
            state = self._m_state
            if self._m_lead and self._fresh and state == BEFORE:
                # Before any content, a bare body ends marker processing (as a marker does).
                first = _NON_BLANK.search(text, pos)
                if first is not None and first.group() in self._bare:
                    state = self._m_state = PASS
            pattern = self._m_patterns[state]
            found = pattern.search(text, pos) if pattern is not None else None
            if found is None:
                keep = 0 if final else partial_in(text, pos, self._m_partials[state])
                self._m_emit(text[pos : size - keep])
                self._m_pending = text[size - keep :]
                self._m_at += size - keep - pos
                return
            start = found.start()
            self._m_emit(text[pos:start])
            self._m_at += start - pos
            marker = found.group()
            self._on_marker(marker)
            self._m_at += len(marker)
            pos = found.end()

    def end(self) -> None:
        """The output ended: what is held back is read, reasoning left open noted."""
        self.read("", final=True)
        if self._m_state == INSIDE:
            assert self._marked_syntax is not None  # (only its markers open reasoning)
            self._notes.append(self._marked_syntax.unclosed_note())

    def _on_marker(self, marker: str) -> None:
        state = self._m_state
        if marker in self._drops:
            if state != INSIDE:
                self._collapse = self._last_space
            self._calls.skip(len(marker))
            return
        if state != INSIDE and marker in self._stoppers:
            # A tool call: marker processing stops (the call's body is the syntax's).
            self._m_emit(marker)
            self._m_state = PASS
            return
        self._calls.skip(len(marker))
        if state == BEFORE and marker in self._starts:
            self._m_state = INSIDE
            self._reasoning.opened()
        elif state == INSIDE:
            self._m_state = AFTER
        elif marker in self._stray and marker not in self._response_tags:
            assert self._marked_syntax is not None  # (stray ends are its markers)
            self._notes.append(self._marked_syntax.stray_end_note(marker, self._m_at))
        self._collapse = self._last_space

    def _m_emit(self, text: str) -> None:
        """Text of the stage: reasoning, or content for the tool-call stage."""
        if not text:
            return
        if self._m_state == INSIDE:
            self._reasoning.emit(text)
            self._calls.skip(len(text))
            return
        if self._collapse:
            stripped = text.lstrip(BLANKS)
            if len(stripped) < len(text):
                self._calls.skip(len(text) - len(stripped))
                text = stripped
            if not text:
                return
            self._collapse = False
        self._calls.read(text)
        self._last_space = text[-1] in BLANKS
        if self._fresh and text.strip(BLANKS):
            self._fresh = False
