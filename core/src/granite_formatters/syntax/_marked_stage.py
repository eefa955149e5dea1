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
stages it is a part of the parser (``_engine/parse.py``): it keeps its state on the
parser, whose lanes read it, and declares what it uses of the parser.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import TYPE_CHECKING, ClassVar

from ._markers import Partials, marker_pattern, partial_in, partials

if TYPE_CHECKING:
    from .._engine.prompt_facts import PromptFacts
    from ..release import Release
    from ._protocols import MarkedReasoningSyntax, ToolCallSyntax

__all__ = [
    "AFTER",
    "BEFORE",
    "BLANKS",
    "INSIDE",
    "OFF",
    "PASS",
    "MarkedStage",
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


class MarkedStage:
    """The marked stage of the parser (see the module docstring)."""

    #: The parser's slots that hold this stage's state.
    FIELDS: ClassVar[tuple[str, ...]] = (
        "_collapse",
        "_drops",
        "_fresh",
        "_last_space",
        "_m_at",
        "_m_firsts",
        "_m_lead",
        "_m_markers",
        "_m_partials",
        "_m_patterns",
        "_m_pending",
        "_m_state",
        "_marked_syntax",
        "_response_tags",
        "_starts",
        "_stoppers",
        "_stray",
    )

    _m_state: int
    _marked_syntax: MarkedReasoningSyntax | None
    _drops: tuple[str, ...]
    _starts: tuple[str, ...]
    _response_tags: tuple[str, ...]
    _stray: tuple[str, ...]
    _stoppers: tuple[str, ...]
    _m_markers: tuple[tuple[str, ...], ...]
    _m_patterns: tuple[re.Pattern[str] | None, ...]
    _m_firsts: tuple[frozenset[str], ...]
    _m_partials: tuple[Partials, ...]
    _m_pending: str  # a partial marker at the end of the text read
    _m_at: int  # the offset of the start of _m_pending in the output
    _m_lead: bool  # a bare body may come first
    _fresh: bool  # no content but blanks passed on yet
    _collapse: bool  # the blanks next passed on are a removed marker's seam
    _last_space: bool  # whether the content passed on last ended in a blank

    # What the stage uses of the parser.
    _notes: list[str]
    _r_seen: bool  # a start marker was read
    _syntax: ToolCallSyntax | None
    _emit_reasoning: Callable[[str], None]  # the reasoning sink
    _read: Callable[[str], None]  # the tool-call stage
    _skip: Callable[[int], None]  # text the tool-call stage does not see

    def _marked_setup(self, release: Release, facts: PromptFacts | None, bare: bool) -> None:
        """The stage's state for an output of ``release`` (off when the release has no
        marked reasoning and drops no token); ``bare``: a bare body may come first."""
        reasoning = release.reasoning
        marked = self._marked_syntax = reasoning.marked() if reasoning is not None else None
        drops = self._drops = release.dropped_tokens
        self._m_state = OFF
        if marked is None and not drops:
            return
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
                stray = ends
        syntax = release.tool_calls
        stoppers = (syntax.open, *release.tool_call_markers) if syntax is not None else ()
        self._starts, self._response_tags, self._stray = starts, tags, stray
        self._stoppers = stoppers
        self._m_markers, self._m_patterns, self._m_firsts = marked_tables(
            starts, ends, tags, stray, stoppers, drops
        )
        self._m_partials = tuple(map(partials, self._m_markers))
        self._m_state = BEFORE
        self._m_pending = ""
        self._m_at = 0
        self._m_lead = bare
        self._fresh = True
        self._collapse = False
        self._last_space = True

    def _marked(self, text: str, final: bool = False) -> None:
        """Read ``text`` (see the module docstring); a partial marker at its end is held
        back unless ``final``."""
        state = self._m_state
        if (
            not self._m_pending
            and not self._collapse
            and self._m_firsts[state].isdisjoint(text)
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
                bare = self._syntax.bare_body if self._syntax is not None else ""
                if first is not None and first.group() in bare:
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

    def _marked_end(self) -> None:
        """The output ended: what is held back is read, reasoning left open noted."""
        if self._m_state != OFF:
            self._marked("", final=True)
            if self._m_state == INSIDE:
                assert self._marked_syntax is not None  # (only its markers open reasoning)
                self._notes.append(self._marked_syntax.unclosed_note())

    def _on_marker(self, marker: str) -> None:
        state = self._m_state
        if marker in self._drops:
            if state != INSIDE:
                self._collapse = self._last_space
            self._skip(len(marker))
            return
        if state != INSIDE and marker in self._stoppers:
            # A tool call: marker processing stops (the call's body is the syntax's).
            self._m_emit(marker)
            self._m_state = PASS
            return
        self._skip(len(marker))
        if state == BEFORE and marker in self._starts:
            self._m_state = INSIDE
            self._r_seen = True
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
            self._emit_reasoning(text)
            self._skip(len(text))
            return
        if self._collapse:
            stripped = text.lstrip(BLANKS)
            if len(stripped) < len(text):
                self._skip(len(text) - len(stripped))
                text = stripped
            if not text:
                return
            self._collapse = False
        self._read(text)
        self._last_space = text[-1] in BLANKS
        if self._fresh and text.strip(BLANKS):
            self._fresh = False
