"""The one parser: raw output of a :class:`~granite_formatters.Release` in, a message out.

A driver that feeds the output through its stages, each an object with its own state,
built by its syntax module from the release and the request's prompt facts: the marked
stage (reasoning that may start anywhere, tokens dropped everywhere,
``syntax/_marked_stage.py``) or the reasoning phase at the start of the output
(``syntax/_reasoning_stage.py``), then the tool-call stage (``syntax/_call_stage.py``),
whose text goes through the citation stages (``syntax/_citations/``) when the release
has them, to the trimmed content (``content.py``). The fast lanes ask the stages what
they need (:meth:`CallStage.take`, :meth:`MarkedStage.lane`, ``CallStage.idle``).

One left-to-right pass that works the same on a whole text and on chunks (a batch parse
feeds the stream parser once), so streaming equals the batch parse for every chunking by
construction. A batch parse asks for no deltas, so its parser builds none (only the
message). Parsing never raises and each character is looked at a bounded number of
times. The steady cases (a chunk that cannot touch a marker, or that only extends a
block's body) are finished at the top of :meth:`ReleaseStreamParser.feed`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import attrs

from .._streaming import ChunkText, Delta, StreamParser, content_delta, finish_deltas
from .._toolcalljson import text_safe
from .._types import AssistantMessage, ToolCall
from ..syntax._call_stage import CallMarkers, CallStage
from ..syntax._marked_stage import MarkedStage, hold_start, hold_tables, lane_firsts
from ..syntax._reasoning_stage import ReasoningStage
from .content import ContentOutput, Trimmed
from .prompt_facts import PromptFacts, prompt_facts

if TYPE_CHECKING:
    from .._processors import RequestLike
    from ..release import Release
    from ..syntax._citations.reader import CitationReader

__all__ = ["ReleaseStreamParser"]

_SURROGATES_REPLACED = "replaced lone surrogates (not encodable as UTF-8) in the output with U+FFFD"
#: ``str.isascii``, called on a chunk: one call both checks that the chunk is text (it
#: raises TypeError otherwise) and whether it can hold a lone surrogate.
_isascii = str.isascii
#: No text (nothing held back).
_NONE: frozenset[str] = frozenset()


def _ignored(text: str) -> None:
    pass


class ReleaseStreamParser(StreamParser):
    """The incremental parser of one output of a release (see the module docstring)."""

    # Slots, by what they hold: the output and message; the stages and what the lanes
    # call of them; the lanes' state; the cited lane's and what feed holds back.
    __slots__ = (
        *("_calls", "_chunks", "_deltas", "_message", "_message_type", "_notes"),
        *("_request", "_facts", "_role_sent", "_surrogates", "_text_of"),
        *("_cite", "_content", "_marked", "_reasoning", "_stage"),
        *("_lt", "_pieces", "_read", "_spaces", "_take"),
        *("_c_ready", "_lanes", "_steady"),
        *("_c_firsts", "_c_from", "_c_lane", "_c_write", "_settled"),
        *("_h_sets", "_h_tails", "_hold", "_holding"),
    )

    def __init__(
        self,
        release: Release,
        request: RequestLike | None = None,
        *,
        deltas: bool = True,
        table: CallMarkers | None = None,
        defaults: PromptFacts | None = None,
    ) -> None:
        """A parser of one output of ``release`` for ``request``; with ``deltas=False``
        (a batch parse, which wants only :attr:`message`) ``feed`` and ``close`` build
        and return no deltas. ``table``: the release's markers, made once per release;
        ``defaults``: the facts of a ``defaults_only`` request (which reads no citations)."""
        self._deltas = deltas
        self._message_type: type[AssistantMessage] = AssistantMessage
        self._message: AssistantMessage | None = None
        self._role_sent = False
        self._chunks: list[str] = []
        self._calls: list[ToolCall] = []
        self._notes: list[str] = []
        self._text_of: ChunkText | None = None  # (made when bytes arrive: decoded as UTF-8)
        self._surrogates = False  # (lone surrogates were replaced: noted first)
        # The prompt's facts: read here for the reasoning or a bare body, else on first use.
        syntax = release.tool_calls
        self._request = (release, request)
        self._facts: PromptFacts | None = defaults
        read = release.reasoning is not None or (syntax is not None and syntax.bare_body)
        facts = self._prompt_facts() if read else None
        content = self._content = ContentOutput()
        out = content if deltas else None
        # The citation stages (CitationReader) read the content; the message is their type.
        cite = release.citations
        self._cite: CitationReader | None = None
        if cite is not None:
            self._message_type = cite.message_type()
            self._cite = None if defaults else cite.reader(Trimmed(content), self._notes, request)
        emit = content.trim if self._cite is None else self._cite.write
        #: Whether feed's fast lanes are open (after the reasoning phase, until the
        #: stream is closed): no stage but the tool-call stage reads the chunk.
        self._lanes = False
        # The stages (see the module docstring; positional arguments, see CallStage).
        table = table or CallMarkers(release)
        notes, lanes = self._notes, self._open_lanes
        calls = self._stage = CallStage(
            table, facts, self._prompt_facts, emit, out, self._calls, notes, lanes
        )
        self._read, self._take, self._lt = calls.read, calls.take, calls.first
        self._pieces, self._spaces = content.pieces, content.spaces  # (the lanes' trim)
        marks = MarkedStage.reads(release)  # (else the reasoning stage reads a phase)
        reasoning = ReasoningStage(release, facts, not marks, calls, out, notes, lanes)
        self._reasoning = reasoning
        bare = calls.bare_next
        marked = MarkedStage.of(release, facts, bare, calls, reasoning, notes) if marks else None
        self._marked = marked
        self._open_lanes()
        #: Whether the next chunk with no "<" in it is content whole (feed's first lane):
        #: the lanes are open, the content has started and its role was sent, and no
        #: block or partial tag is pending. Set at the end of each chunk that takes the
        #: full path (the only path that changes any of these).
        self._steady = False
        self._c_ready = False  # (the content started, its role sent: set with _steady)
        self._settled: frozenset[str] | None = None
        self._c_lane: frozenset[str] | None = None
        self._c_write: Callable[[str], str | None] = _ignored
        self._c_from = 0  # (the first of the chunks the lanes took: see _catch_up)
        # What feed holds back (see _settle and _hold_tail; for a stream only).
        self._hold = ""
        self._holding: frozenset[str] = _NONE
        self._h_sets: tuple[frozenset[str], ...] = ()
        self._h_tails: tuple[re.Pattern[str], frozenset[str], int] | None = None
        self._c_firsts: tuple[frozenset[str], ...] = ()
        if self._cite is not None:
            # The cited lane (see _settle): the characters that need the scans of the
            # marked stage (in each of its states) or of the tool-call stage.
            self._c_firsts = lane_firsts(calls.markers, marked.firsts if marked else None)
            if deltas:
                markers = marked.markers if marked else ((),) * 5
                holds = self._cite.holds()
                self._h_sets, self._h_tails = hold_tables(markers, calls.markers, holds)
            self._settle()

    def _prompt_facts(self) -> PromptFacts:
        """What the request's prompt says (read on first use)."""
        facts = self._facts
        if facts is None:
            facts = self._facts = prompt_facts(*self._request)
        return facts

    def _open_lanes(self) -> None:
        """Open feed's fast lanes when no stage but the tool-call stage reads the output
        any more: its bare body is decided, the reasoning is behind, no decoder or
        citation stages read the chunks, and the stream is open."""
        text_of = self._text_of
        if (
            self._message is None
            and not self._stage.bare_next
            and self._marked is None
            and self._reasoning.phase is None
            and self._cite is None
            and (text_of is None or not text_of.decoding)
        ):
            self._lanes = True

    def feed(self, chunk: str | bytes) -> list[Delta]:
        # (str's isascii: it raises TypeError for bytes, or another object _feed makes
        # text of, so past it ``chunk`` is a str.)
        try:
            ascii = _isascii(chunk)  # type: ignore[arg-type]
        except TypeError:
            return self._feed(chunk)
        text: str = chunk  # type: ignore[assignment]
        if not ascii:
            text = self._safe(text)
        if self._steady and self._lt not in text:
            # The fast lane: the content has started, nothing is pending and no tag can
            # start in this chunk, so all of it is content (what the tool-call stage
            # would pass on, its offset counted by _catch_up), trimmed below.
            self._chunks.append(text)
        elif self._lanes:
            if not text:
                return self._feed(text)
            # Only the tool-call stage reads the output: its steady cases, else its read.
            if self._steady:
                self._catch_up()  # (before the lane closes)
                self._steady = False
            self._chunks.append(text)
            if self._take(text):
                return []
            self._read(text)
            return self._deltas_out()
        else:
            # (The lanes above are closed while citation stages read the output.)
            hold = self._hold
            if hold:
                # The beginning of a marker, held back (see _hold_tail): still undecided?
                held = hold + text
                if held in self._holding:
                    self._chunks.append(text)
                    self._hold = held
                    return []
                return self._feed(text)
            settled = self._settled
            if settled is None or not text or not settled.isdisjoint(text):
                return self._feed(text)
            # The cited lane (see _settle): neither the marked stage nor the tool-call stage
            # can find a marker in this chunk, so it is content (their bookkeeping is done
            # when the full path next runs, see _catch_up), and goes on to the citation
            # stages, or past their scans when it holds no character they look for.
            self._chunks.append(text)
            lane = self._c_lane
            if lane is None or not lane.isdisjoint(text):
                assert self._cite is not None
                self._cite.write(text)
                self._cite_lane()
                return self._deltas_out()
            # Past the citation stages' scans: what reaches the content is trimmed.
            passed = self._c_write(text)
            if not passed:
                return []
            if not self._c_ready:
                self._content.trim(passed)
                return self._deltas_out()
            text = passed
        # The lanes' content, trimmed (ContentOutput.trim, inlined once the content has
        # started and the role was sent: this runs for each streamed chunk).
        body = text.rstrip()
        spaces = self._spaces
        if not body:
            spaces.append(text)
            return []
        size = len(body)
        if spaces:
            body = "".join(spaces) + body
            spaces.clear()
        if size < len(text):
            spaces.append(text[size:])
        self._pieces.append(body)
        return [content_delta(body)]

    def _feed(self, chunk: str | bytes) -> list[Delta]:
        """The full path of :meth:`feed` (no lane took ``chunk``)."""
        if self._c_from < len(self._chunks) and (self._steady or self._settled is not None):
            self._catch_up()
        if self._message is not None:
            raise RuntimeError("feed() after close()")
        text_of = self._text_of
        if chunk.__class__ is not str or (text_of is not None and text_of.decoding):
            # Once bytes have arrived every chunk goes through the decoder (a str chunk
            # ends a character the bytes before it left incomplete), so the lanes close.
            self._lanes = self._steady = False
            if text_of is None:
                text_of = self._text_of = ChunkText()
            chunk = text_of(chunk)
            if not chunk.isascii():
                chunk = self._safe(chunk)
        settle = self._cite is not None
        hold = self._hold
        if chunk:
            self._chunks.append(chunk)
            if hold:
                chunk = hold + chunk  # (decided: taken with the chunk that decides it)
                self._hold = ""
            if self._h_tails is not None:
                settle = not self._hold_tail(chunk)
            else:
                self._consume(chunk)
        if settle:
            self._settle()
        return self._deltas_out()

    def _deltas_out(self) -> list[Delta]:
        """The deltas of the chunk fed (at the end of its full path, or of the cited lane
        when the stages wrote to the content)."""
        content = self._content
        if not self._deltas:
            content.drop()
            return []
        deltas = content.deltas()
        if deltas and not self._role_sent:
            # The first delta of the stream carries the role.
            self._role_sent = True
            deltas[0] = attrs.evolve(deltas[0], role="assistant")
        # Whether the next chunk with no "<" may take the fast lane at the top, and
        # whether the content of the cited lane may be trimmed there.
        self._c_ready = content.started and self._role_sent
        self._steady = self._c_ready and self._lanes and self._stage.idle
        if self._steady:
            self._c_from = len(self._chunks)  # (see _catch_up)
        return deltas

    def _settle(self) -> None:
        """Open or close the cited lane at the top of :meth:`feed` for the stages' state.

        It is open while the marked stage (if any) says which of its markers a chunk
        must not hold (:meth:`~granite_formatters.syntax._marked_stage.MarkedStage.lane`),
        the reasoning phase is over and the tool-call stage is idle in the text: a chunk
        holding none of the characters that begin their markers (``_settled``) is
        content for the citation stages, which say in turn which characters need their
        scans (``_c_lane``, see
        :meth:`~granite_formatters.syntax._citations.reader.CitationReader.lane`). No
        such chunk changes any of this, so it is only worked out again after a chunk
        that took the full path (or went through the citation stages' scans).
        """
        self._settled = None
        self._holding = _NONE
        if self._cite is None or self._message is not None or not self._stage.idle:
            return
        text_of = self._text_of
        if text_of is not None and text_of.decoding:
            return
        marked = self._marked
        if marked is None:
            if self._reasoning.phase is not None:
                return
            state = 0
        else:
            lane = marked.lane()
            if lane is None:
                return
            state = lane
        self._settled = self._c_firsts[state]
        self._c_from = len(self._chunks)
        self._cite_lane()
        if self._h_sets and self._cite.between_markers():
            self._holding = self._h_sets[state]

    def _catch_up(self) -> None:
        """The bookkeeping of the marked stage and the tool-call stage for the chunks the
        fast lane or the cited lane took since it opened (what they would do with them
        as content), done once before their next use: called while one of them is open.
        (While ``_hold`` is not empty the chunks since were held, not taken.)"""
        if self._hold:
            return
        chunks = self._chunks
        taken = chunks[self._c_from :]
        if not taken:
            return
        self._c_from = len(chunks)
        size = len("".join(taken))
        if self._marked is not None:
            self._marked.passed(taken, size)
        self._stage.skip(size)

    def _hold_tail(self, chunk: str) -> bool:
        """Consume ``chunk``, but hold back its end when it is the beginning of a marker
        that the stages, settled after the rest of the chunk, would keep whole (see
        ``_marked_stage.hold_tables``): feed keeps such text until a chunk decides it, the
        stages' scans skipped for the chunks in between (they would pass nothing on).
        Whether it held (the lane is then settled for the stages' state)."""
        assert self._h_tails is not None
        start = hold_start(chunk, self._h_tails)
        if start is None:
            self._consume(chunk)
            return False
        if start:
            self._consume(chunk[:start])
        self._settle()
        if self._settled is not None and chunk[start:] in self._holding:
            self._hold = chunk[start:]
            return True
        self._consume(chunk[start:])
        return False

    def _cite_lane(self) -> None:
        """Where the cited lane hands a chunk free of the citation stages' characters."""
        assert self._cite is not None
        lane = self._cite.lane()
        self._c_lane, self._c_write = (None, self._c_write) if lane is None else lane

    def _safe(self, chunk: str) -> str:
        """``chunk`` with lone surrogates replaced by U+FFFD (noted at the end)."""
        safe = text_safe(chunk)
        if safe is None:
            return chunk
        self._surrogates = True
        return safe

    def _close(self, finish_reason: str | None, stop_reason: str | None) -> list[Delta]:
        """End the stream; the last delta carries ``finish_reason`` (see the base class)."""
        if self._message is not None:
            return []
        if self._steady or self._settled is not None:
            self._catch_up()
        # (A character cut at the end of the bytes: U+FFFD.)
        hold, self._hold = self._hold, ""
        if hold:
            self._consume(hold)  # (what came before the decoder's rest)
        rest = self._text_of.end() if self._text_of is not None else ""
        if rest:
            self._chunks.append(rest)
            self._consume(rest)
        if self._marked is not None:
            self._marked.end()
        self._reasoning.end()
        self._lanes = self._steady = False
        self._settled = None
        self._stage.end()
        cited: dict[str, Any] = {}
        content = self._content
        if self._cite is not None:
            self._cite.end()  # (the sections read: what they do not account for is content)
            found = self._cite.finish(content.text, content.lead)
            cited = dict(zip(("citations", "documents", "hallucinations"), found, strict=True))
        if self._surrogates:
            self._notes.insert(0, _SURROGATES_REPLACED)
        self._message = self._message_type(
            content=content.text,
            reasoning_content=self._reasoning.text(),
            tool_calls=self._calls,
            raw_content="".join(self._chunks),
            notes=list(dict.fromkeys(self._notes)),
            stop_reason=stop_reason,
            **cited,
        )
        if not self._deltas:
            return []
        return finish_deltas(
            content.flush(),
            first=not self._role_sent,
            finish_reason=finish_reason,
            tool_calls=bool(self._calls),
        )

    @property
    def message(self) -> AssistantMessage | None:
        return self._message

    def _consume(self, text: str) -> None:
        """Feed ``text`` to the stages."""
        if self._marked is not None:
            self._marked.read(text)
            return
        if self._reasoning.phase is not None:
            text = self._reasoning.read(text)
            if not text:
                return
        self._read(text)
