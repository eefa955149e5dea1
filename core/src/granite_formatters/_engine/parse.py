"""The one parser: raw output of a :class:`~granite_formatters.Release` in, a message out.

One left-to-right pass that works the same on a whole text and on chunks (a batch parse
feeds the stream parser once), so streaming equals the batch parse for every chunking by
construction. A batch parse asks for no deltas, so its parser builds none (only the
message). Text outside tool-call blocks is content (the whole content's leading and
trailing Unicode whitespace removed, as :meth:`str.strip` removes it); a possible partial
open marker at the end of a chunk is held back only while it can still become the
marker; a block's body is read by the release's tool-call syntax, which decodes it once
the close marker is complete. A block
that is malformed or unclosed stays in the content, with a note (a syntax without a
close marker, such as JSON lists, ends a block where its body ends). Parsing never raises
and each character is looked at a bounded number of times. The steady cases (a chunk
that cannot touch a marker, or that only extends a block's body) are finished at the top
of :meth:`ReleaseStreamParser.feed`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import attrs

from .._errors import InvalidRequestError
from .._processors import OutputProcessor
from .._streaming import (
    ChunkText,
    Delta,
    StreamParser,
    content_delta,
    finish_deltas,
    reasoning_delta,
    tool_call_delta,
)
from .._toolcalljson import text_safe
from .._types import AssistantMessage, ToolCall, ToolCallIds, coerce_request
from ..syntax._block_notes import closes_no_call, holds_no_call, kept_as_content, not_a_call
from ..syntax._marked_stage import AFTER as _M_AFTER
from ..syntax._marked_stage import BEFORE as _M_BEFORE
from ..syntax._marked_stage import INSIDE as _M_INSIDE
from ..syntax._marked_stage import OFF as _M_OFF
from ..syntax._marked_stage import PASS as _M_PASS
from ..syntax._marked_stage import hold_tables as _hold_tables
from ..syntax._marked_stage import lane_firsts as _lane_firsts
from ..syntax._marked_stage import marked_tables as _marked_tables
from ..syntax._markers import marker_pattern as _alternation
from ..syntax._markers import partial_in as _partial_in
from ..syntax._markers import partials as _partials
from ..syntax._reasoning import OpenedReasoningReader
from .prompt_facts import PromptFacts, prompt_facts

if TYPE_CHECKING:
    from .._processors import RequestLike
    from ..release import Release
    from ..syntax._citations.reader import CitationReader
    from ..syntax._protocols import BlockReader, MarkedReasoningSyntax

__all__ = ["ReleaseOutputProcessor", "ReleaseStreamParser"]

# Whitespace between a block's JSON and its close marker (JSON's).
_WHITESPACE = " \t\r\n"

_TEXT, _OPEN, _JSON, _CLOSE = range(4)
_NON_SPACE = re.compile(r"[^ \t\r\n]")
# Python's ASCII blanks: skipped between an open marker and its body, and at the seam
# of a removed reasoning marker.
_BLANKS = " \t\n\r\f\v"
_NON_BLANK_BODY = re.compile(r"[^ \t\n\r\f\v]")
# The first character of the content that a bare body may be (Python's ASCII blanks).
_NON_BLANK = re.compile(r"[^ \t\n\r\f\v]")
# A bare body (see ToolCallSyntax): none, the content's first character still to come,
# inside one.
_NO_BARE, _BARE_NEXT, _BARE_BLOCK = range(3)
#: At most this many characters of a block's body are held back unread (see
#: BlockReader.holds): a body that fails is told within this many more characters.
_MAX_HELD = 256
_SURROGATES_REPLACED = "replaced lone surrogates (not encodable as UTF-8) in the output with U+FFFD"
#: ``str.isascii``, called on a chunk: one call both checks that the chunk is text (it
#: raises TypeError otherwise) and whether it can hold a lone surrogate.
_isascii = str.isascii


def _partial_prefix(text: str, tag: str) -> int:
    """Length of the longest suffix of ``text`` that is a proper prefix of ``tag``."""
    start = max(0, len(text) - len(tag) + 1)
    while True:
        found = text.find(tag[0], start)
        if found == -1:
            return 0
        if tag.startswith(text[found:]):
            return len(text) - found
        start = found + 1


class ReleaseStreamParser(StreamParser):
    """The incremental parser of one output of a release (see the module docstring)."""

    # Slots: read and written for each chunk, and more than CPython's shared instance
    # dictionaries hold (past 30 names every attribute access takes the slow path).
    __slots__ = (
        "_bare",
        "_block",
        "_block_len",
        "_c_firsts",
        "_c_from",
        "_c_lane",
        "_c_partials",
        "_c_ready",
        "_c_write",
        "_called",
        "_calls",
        "_chunks",
        "_cite",
        "_close_tag",
        "_collapse",
        "_content",
        "_deltas",
        "_drops",
        "_ends",
        "_every",
        "_facts",
        "_finder",
        "_fresh",
        "_h_sets",
        "_h_tails",
        "_held",
        "_held_len",
        "_hold",
        "_holding",
        "_ids",
        "_json_end",
        "_json_start",
        "_lag",
        "_lanes",
        "_last_space",
        "_lead",
        "_lt",
        "_m_at",
        "_m_firsts",
        "_m_lead",
        "_m_markers",
        "_m_partials",
        "_m_patterns",
        "_m_pending",
        "_m_state",
        "_marked_syntax",
        "_marker",
        "_message",
        "_message_type",
        "_mode",
        "_notes",
        "_offset",
        "_open",
        "_out",
        "_out_text",
        "_pending",
        "_r_seen",
        "_r_spaces",
        "_r_started",
        "_reasoning",
        "_request",
        "_response_tags",
        "_role_sent",
        "_scanner",
        "_settled",
        "_spaces",
        "_started",
        "_starts",
        "_steady",
        "_stoppers",
        "_stray",
        "_surrogates",
        "_syntax",
        "_text_of",
        "_think",
        "_tools",
        "_tools_read",
    )

    def __init__(
        self, release: Release, request: RequestLike | None = None, *, deltas: bool = True
    ) -> None:
        """A parser of one output of ``release`` for ``request``; with ``deltas=False``
        (a batch parse, which wants only :attr:`message`) ``feed`` and ``close`` build
        and return no deltas."""
        self._deltas = deltas
        self._message_type: type[AssistantMessage] = AssistantMessage
        # What the request's prompt says, read once as the renderer reads the request:
        # here when the reasoning or a bare body needs it, else when a block first does.
        syntax = release.tool_calls
        bare_body = syntax.bare_body if syntax is not None else ""
        self._request = (release, request)
        self._facts: PromptFacts | None = None
        facts = self._prompt_facts() if release.reasoning is not None or bare_body else None
        cite = release.citations
        if cite is not None:
            # (The citation stages read the request's documents and controls: it is
            # validated as the citation syntax's request type, and the message is of
            # its message type.)
            self._message_type = cite.message_type()
            if request is not None:
                try:
                    request = coerce_request(request, cite.request_type())
                except InvalidRequestError:
                    request = None  # (a parser never raises: read without the request)
        self._syntax = syntax
        # The markers (a release without tool calls has an open marker that never matches).
        self._open = syntax.open if syntax is not None else "\x00" * 2
        self._close_tag = syntax.close if syntax is not None else ""
        self._lt = self._open[0]
        # The release's further open markers and the end markers it removes (3.x
        # "<tool_call>", "</tool_call>"): found by one pattern when there are any.
        self._marker = self._open  # (the marker of the block being read)
        self._ends = release.tool_call_ends if syntax is not None else ()
        every = (self._open, *release.tool_call_markers, *self._ends) if syntax else ()
        self._every = every = tuple(dict.fromkeys(every)) or (self._open,)
        self._finder: re.Pattern[str] | None = None
        self._c_partials = _partials(every)
        if len(every) > 1:
            self._finder = _alternation(every)
            if len({marker[0] for marker in every}) > 1:
                self._lt = ""  # (no chunk is free of every first character: no lanes)
        self._called = False  # (a block has held calls: a later end marker is silent)
        self._chunks: list[str] = []
        self._offset = 0  # absolute offset of the start of self._pending / the block
        self._mode = _TEXT
        self._pending = ""  # a partial <tool_call> (TEXT) or </tool_call> (CLOSE)
        self._block: list[str] = []  # the block so far, from "<tool_call>"
        self._block_len = 0
        self._json_start = 0  # offset of the JSON inside the block
        self._json_end = 0
        self._scanner: BlockReader | None = None
        # Body text the reader let feed hold back unread (see BlockReader.holds): read
        # with the next chunk that feed does not hold.
        self._held: list[str] = []
        self._held_len = 0
        self._started = False
        self._spaces: list[str] = []
        self._content: list[str] = []
        self._calls: list[ToolCall] = []
        self._notes: list[str] = []
        self._out: list[Delta] = []
        self._out_text: list[str] = []
        self._message: AssistantMessage | None = None
        self._role_sent = False
        self._ids: ToolCallIds | None = None  # (made for the first call that needs an id)
        # The tools the prompt lists (their schemas type the values).
        self._tools: list[Mapping[str, Any]] | None = (
            None if facts is None else self._prepared_tools(facts)
        )
        self._tools_read = facts is not None
        self._text_of: ChunkText | None = None  # (made when bytes arrive: decoded as UTF-8)
        self._surrogates = False  # (lone surrogates were replaced: noted first)
        # The citation stages (see CitationReader): the content goes through them.
        self._lead = 0  # (characters stripped from the start of the content)
        self._cite: CitationReader | None = None
        if cite is not None:
            self._cite = cite.reader(_Trimmed(self), self._notes, request)  # type: ignore[arg-type]
        # A body the syntax reads without its marker at the start of the content, when
        # the request offered tools (the lanes stay closed until that is decided).
        self._bare = _NO_BARE
        if bare_body and self._tools:
            self._bare = _BARE_NEXT
        #: Whether feed's fast lanes are open (after the reasoning phase, until the
        #: stream is closed).
        self._lanes = self._bare == _NO_BARE and self._cite is None
        #: Whether the next chunk with no "<" in it is content whole (feed's first lane):
        #: the lanes are open, the content has started and its role was sent, and no
        #: block or partial tag is pending. Set at the end of each chunk that takes the
        #: full path (the only path that changes any of these).
        self._steady = False
        #: Whether the content has started and its role was sent (the cited lane's
        #: trim): set with _steady.
        self._c_ready = False
        # The reasoning phase (see _reason): its reader while it lasts.
        reasoning = release.reasoning
        self._think: OpenedReasoningReader | None = None
        self._reasoning: list[str] = []
        self._r_started = False
        self._r_spaces: list[str] = []
        self._r_seen = False  # (a start marker was read: the reasoning is "" at least)
        # The marked stage (see _marked), for reasoning that may start anywhere and for
        # the release's dropped tokens.
        self._m_state = _M_OFF
        self._lag = 0  # (text the marked stage removed inside a block: see _skip)
        marked = reasoning.marked() if reasoning is not None else None
        self._marked_syntax = marked
        self._drops: tuple[str, ...] = release.dropped_tokens
        if marked is not None or self._drops:
            self._marked_setup(release, facts, marked)
        elif reasoning is not None and facts is not None and not facts.continued:
            # (the answer to a continued message continues its content: no reasoning)
            self._think = OpenedReasoningReader(
                reasoning,
                facts.options,
                opened=facts.opens_reasoning(release),
                stopper=syntax.open if syntax is not None else "",
                emit=self._emit_reasoning,
                notes=self._notes,
            )
            self._lanes = False
        # The cited lane (see _settle): the characters that need the scans of the
        # marked stage (in each of its states) or of the content parser.
        self._c_firsts = _lane_firsts(every, self._m_firsts if self._m_state != _M_OFF else None)
        self._settled: frozenset[str] | None = None
        self._c_lane: frozenset[str] | None = None
        self._c_write: Callable[[str], str | None] = _ignored
        self._c_from = 0  # (the first of the chunks the lanes took: see _catch_up)
        # What feed holds back (see _settle and _hold_tail): made for a stream only (a
        # batch parse is one chunk).
        self._hold = ""
        self._holding: frozenset[str] = frozenset()
        self._h_sets: tuple[frozenset[str], ...] = ()
        self._h_tails: tuple[re.Pattern[str], frozenset[str], int] | None = None
        if self._cite is not None and deltas:
            markers = self._m_markers if self._m_state != _M_OFF else ((),) * 5
            self._h_sets, self._h_tails = _hold_tables(markers, every, self._cite.holds())
        self._settle()

    def _prompt_facts(self) -> PromptFacts:
        """What the request's prompt says (read on first use)."""
        facts = self._facts
        if facts is None:
            facts = self._facts = prompt_facts(*self._request)
        return facts

    def _prepared_tools(self, facts: PromptFacts) -> list[Mapping[str, Any]] | None:
        """The tools the prompt lists, as the syntax reads them (once per output)."""
        return facts.tools if self._syntax is None else self._syntax.prepare_tools(facts.tools)

    def _marked_setup(
        self, release: Release, facts: PromptFacts | None, marked: MarkedReasoningSyntax | None
    ) -> None:
        starts: tuple[str, ...] = ()
        ends: tuple[str, ...] = ()
        tags: tuple[str, ...] = ()
        stray: tuple[str, ...] = ()
        if (
            marked is not None
            and facts is not None
            and not facts.continued
            and marked.reads(facts.given)
        ):
            starts = tuple(marked.starts)
            ends = tuple(marked.ends)
            tags = tuple(marked.response_tags)
            if marked.drop_stray_ends:
                stray = ends
        syntax = release.tool_calls
        stoppers = (syntax.open, *release.tool_call_markers) if syntax is not None else ()
        drops = self._drops
        self._starts, self._response_tags, self._stray = starts, tags, stray
        self._stoppers = stoppers
        self._m_markers, self._m_patterns, self._m_firsts = _marked_tables(
            starts, ends, tags, stray, stoppers, drops
        )
        self._m_partials = tuple(map(_partials, self._m_markers))
        self._m_state = _M_BEFORE
        self._m_pending = ""
        self._m_at = 0  # the offset of the start of _m_pending in the output
        self._m_lead = self._bare == _BARE_NEXT  # (a bare body may come first)
        self._fresh = True  # (no content but blanks passed on yet)
        self._collapse = False  # (the blanks next passed on are a removed marker's seam)
        self._last_space = True  # (whether the content passed on last ended in a blank)
        self._lanes = False

    # ------------------------------------------------------------------ API

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
            # start in this chunk, so all of it is content (what _text would find, its
            # offset counted by _catch_up), for the trim at the end of the lanes.
            self._chunks.append(text)
        elif self._lanes:
            if text:
                mode = self._mode
                scanner = self._scanner
                if mode == _JSON and scanner is not None:
                    waiting = self._held_len
                    if not waiting and scanner.take(text):
                        # Inside a block's body, and nothing that could end the body or
                        # fail it: all of it belongs to the body (what _in_block would add).
                        self._chunks.append(text)
                        self._block.append(text)
                        self._block_len += len(text)
                        return []
                    if waiting + len(text) <= _MAX_HELD and scanner.holds(text, self._held):
                        # The body cannot end in it: read with the next chunk (_read).
                        self._chunks.append(text)
                        self._held.append(text)
                        self._held_len = waiting + len(text)
                        return []
                if mode == _CLOSE or (mode == _TEXT and self._finder is None):
                    # A chunk that only extends the "<tool_call>" (TEXT) or "</tool_call>"
                    # (CLOSE) begun so far, or begins one, is kept (what _text or
                    # _in_block would do).
                    pending = self._pending
                    tag = self._open if mode == _TEXT else self._close_tag
                    if (pending or text[0] == self._lt) and len(pending) + len(text) < len(tag):
                        extended = pending + text
                        if tag.startswith(extended):
                            if self._steady:
                                self._catch_up()  # (before the lane closes)
                            self._chunks.append(text)
                            self._pending = extended
                            self._steady = False  # (pending now)
                            return []
                    elif mode == _CLOSE and not pending and not text.strip(_WHITESPACE):
                        # Only whitespace after a block's JSON: part of the block.
                        self._chunks.append(text)
                        self._add_block(text)
                        return []
                # The full path (_feed), as far as it goes while the lanes are open: no
                # citation stages, no decoder, no reasoning phase or marked stage.
                if self._steady:
                    self._catch_up()
                self._chunks.append(text)
                self._read(text)
                return self._deltas_out()
            return self._feed(text)
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
            # The cited lane (see _settle): neither the marked stage nor the content
            # parser can find a marker in this chunk, so it is content (their
            # bookkeeping is done when the full path next runs, see _catch_up), and
            # goes on to the citation stages, or past their scans when it holds no
            # character they look for.
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
                self._trim(passed)
                return self._deltas_out()
            text = passed
        # The lanes' content, trimmed (_trim, inlined once the content has started and
        # the role was sent: this runs for each streamed chunk).
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
        self._content.append(body)
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
            if self._mode == _TEXT and not self._pending and self._lt not in chunk and self._lanes:
                # The fast lane, before the content has started.
                self._emit(chunk)
                self._offset += len(chunk)
            elif self._h_tails is not None:
                settle = not self._hold_tail(chunk)
            else:
                self._consume(chunk)
        if settle:
            self._settle()
        if not self._deltas:  # (a batch parse: _deltas_out's first step, without a call)
            self._out_text.clear()
            return []
        return self._deltas_out()

    def _deltas_out(self) -> list[Delta]:
        """The deltas of the chunk fed (at the end of its full path, or of the cited lane
        when the stages wrote to the content)."""
        if not self._deltas:
            self._out_text.clear()
            return []
        deltas: list[Delta]
        if not self._out:
            # Text only (the usual streamed chunk): at most one delta, built directly.
            if not self._out_text:
                deltas = []
            else:
                out_text = self._out_text
                text = out_text[0] if len(out_text) == 1 else "".join(out_text)
                self._out_text = []
                deltas = [content_delta(text)]
        else:
            deltas = self._flush()
        if deltas and not self._role_sent:
            # The first delta of the stream carries the role.
            self._role_sent = True
            deltas[0] = attrs.evolve(deltas[0], role="assistant")
        # Whether the next chunk with no "<" may take the fast lane at the top, and
        # whether the content of the cited lane may be trimmed there.
        self._c_ready = self._started and self._role_sent
        self._steady = self._c_ready and self._lanes and self._mode == _TEXT and not self._pending
        if self._steady:
            self._c_from = len(self._chunks)  # (see _catch_up)
        return deltas

    def _settle(self) -> None:
        """Open or close the cited lane at the top of :meth:`feed` for the stages' state.

        It is open while the marked stage (if any) is before or after the reasoning
        with nothing pending and no seam to collapse, and the content parser is in the
        text with nothing pending: a chunk holding none of the characters that begin
        their markers (``_settled``) is content for the citation stages, which say in
        turn which characters need their scans (``_c_lane``, see
        :meth:`~granite_formatters.syntax._citations.reader.CitationReader.lane`). No
        such chunk changes any of this, so it is only worked out again after a chunk
        that took the full path (or went through the citation stages' scans).
        """
        self._settled = None
        self._holding = _NONE
        if (
            self._cite is None
            or self._message is not None
            or self._mode != _TEXT
            or self._pending
            or self._bare
        ):
            return
        text_of = self._text_of
        if text_of is not None and text_of.decoding:
            return
        state = self._m_state
        if state == _M_OFF:
            if self._think is not None:
                return
        elif (
            state == _M_INSIDE
            or self._m_pending
            or self._collapse
            or (self._m_lead and self._fresh and state == _M_BEFORE)
        ):
            return
        self._settled = self._c_firsts[state]
        self._c_from = len(self._chunks)
        self._cite_lane()
        if self._h_sets and self._cite.between_markers():
            self._holding = self._h_sets[state]

    def _catch_up(self) -> None:
        """The bookkeeping of the marked stage and the content parser for the chunks the
        fast lane or the cited lane took since it opened (what _marked and _read would
        do with them as content), done once before their next use: called while one of
        them is open. (While ``_hold`` is not empty the chunks since were held, not
        taken.)"""
        if self._hold:
            return
        chunks = self._chunks
        taken = chunks[self._c_from :]
        if not taken:
            return
        self._c_from = len(chunks)
        size = len("".join(taken))
        if self._m_state != _M_OFF:
            self._m_at += size
            self._last_space = taken[-1][-1] in _BLANKS
            if self._fresh and any(piece.strip(_BLANKS) for piece in taken):
                self._fresh = False
        self._offset += size

    def _hold_tail(self, chunk: str) -> bool:
        """Consume ``chunk``, but hold back its end when it is the beginning of a marker
        that the stages, settled after the rest of the chunk, would keep whole (see
        ``_marked_stage.hold_tables``): feed keeps such text until a chunk decides it, the
        stages' scans skipped for the chunks in between (they would pass nothing on).
        Whether it held (the lane is then settled for the stages' state)."""
        assert self._h_tails is not None
        first, tails, longest = self._h_tails
        size = len(chunk)
        if size > longest:
            # (A chunk longer than any text held is not a small chunk of a stream: its
            # end is not looked for, a second pass over it would cost more than it saves.)
            self._consume(chunk)
            return False
        found = first.search(chunk)
        while found is not None:
            start = found.start()
            if chunk[start:] in tails:  # (the earliest is the longest)
                break
            found = first.search(chunk, start + 1)
        else:
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
        if lane is None:
            self._c_lane = None
        else:
            self._c_lane, self._c_write = lane

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
        if self._m_state != _M_OFF:
            self._marked("", final=True)
            if self._m_state == _M_INSIDE:
                assert self._marked_syntax is not None  # (only its markers open reasoning)
                self._notes.append(self._marked_syntax.unclosed_note())
        reader = self._think
        if reader is not None:
            rest = reader.end()
            self._reasoning_done(reader)
            if rest:
                self._read(rest)  # (held text that turned out to be content)
        self._lanes = self._steady = False
        self._settled = None
        if self._held:
            self._read("")  # (body text held back: read now)
        if self._mode == _TEXT:
            self._emit(self._pending)
            self._pending = ""
        else:
            block = "".join(self._block) + (self._pending if self._mode == _CLOSE else "")
            assert self._syntax is not None
            why = self._syntax.unfinished_note()
            if self._bare != _BARE_BLOCK:
                self._notes.append(kept_as_content(self._marker, self._offset, why))
            self._emit(block)
        cited: dict[str, Any] = {}
        content = "".join(self._content)
        if self._cite is not None:
            self._cite.end()  # (the sections read: what they do not account for is content)
            content = "".join(self._content)
            citations, documents, hallucinations = self._cite.finish(content, self._lead)
            cited = {
                "citations": citations,
                "documents": documents,
                "hallucinations": hallucinations,
            }
        if self._surrogates:
            self._notes.insert(0, _SURROGATES_REPLACED)
        raw = "".join(self._chunks)
        reasoning = "".join(self._reasoning)
        self._message = self._message_type(
            content=content,
            reasoning_content=reasoning if reasoning or self._r_seen else None,
            tool_calls=self._calls,
            raw_content=raw,
            notes=list(dict.fromkeys(self._notes)),
            stop_reason=stop_reason,
            **cited,
        )
        if not self._deltas:
            return []
        return finish_deltas(
            self._flush(),
            first=not self._role_sent,
            finish_reason=finish_reason,
            tool_calls=bool(self._calls),
        )

    @property
    def message(self) -> AssistantMessage | None:
        return self._message

    # ------------------------------------------------------------------ machinery

    def _flush_text(self) -> None:
        if self._out_text:
            self._out.append(content_delta("".join(self._out_text)))
            self._out_text = []

    def _flush(self) -> list[Delta]:
        self._flush_text()
        out, self._out = self._out, []
        return out

    def _emit(self, text: str) -> None:
        """Content (through the citation stages when there are any)."""
        if self._cite is not None:
            self._cite.write(text)
        else:
            self._trim(text)

    def _trim(self, text: str) -> None:
        """Content, with the whole content's leading and trailing whitespace removed."""
        if not text:
            return
        if not self._started:
            stripped = text.lstrip()
            self._lead += len(text) - len(stripped)
            text = stripped
            if not text:
                return
            self._started = True
        stripped = text.rstrip()
        spaces = self._spaces
        if not stripped:
            spaces.append(text)
            return
        if spaces:
            body = "".join(spaces) + stripped
            spaces.clear()
        else:
            body = stripped
        if len(stripped) < len(text):
            spaces.append(text[len(stripped) :])
        self._content.append(body)
        self._out_text.append(body)

    def _emit_reasoning(self, text: str) -> None:
        """Reasoning, with its leading and trailing whitespace removed (as content's)."""
        if not text:
            return
        if not self._r_started:
            text = text.lstrip()
            if not text:
                return
            self._r_started = True
        stripped = text.rstrip()
        if not stripped:
            self._r_spaces.append(text)
            return
        body = "".join(self._r_spaces) + stripped
        self._r_spaces = [text[len(stripped) :]] if len(stripped) < len(text) else []
        self._reasoning.append(body)
        if self._deltas:
            self._flush_text()
            self._out.append(reasoning_delta(body))

    def _reason(self, text: str) -> str:
        """The reasoning phase (its reader, see
        :class:`~granite_formatters.syntax._reasoning.OpenedReasoningReader`): what
        follows the reasoning in ``text``, for the content parser, once it is over."""
        reader = self._think
        assert reader is not None
        rest = reader.take(text)
        if rest is None:
            return ""
        self._reasoning_done(reader)
        return rest

    def _reasoning_done(self, reader: OpenedReasoningReader) -> None:
        """The reasoning phase is over: the content parser reads on (its fast lanes
        open when nothing else holds them closed)."""
        self._think = None
        self._r_seen = reader.seen
        self._offset += reader.at
        text_of = self._text_of
        if (
            self._message is None
            and self._bare != _BARE_NEXT
            and (text_of is None or not text_of.decoding)
            and self._cite is None
        ):
            self._lanes = True

    def _consume(self, text: str) -> None:
        if self._m_state != _M_OFF:
            self._marked(text)
            return
        if self._think is not None:
            text = self._reason(text)
            if not text:
                return
        self._read(text)

    def _skip(self, size: int) -> None:
        """``size`` characters of the output that the content parser does not see."""
        if self._mode == _TEXT:
            self._offset += size
        else:
            self._lag += size  # (inside a block: counted when the block ends)

    def _marked(self, text: str, final: bool = False) -> None:
        """The marked stage, before the content parser: reasoning from a start marker
        anywhere before a tool call to an end marker, the response tags and stray end
        markers removed (the blanks at the seam of a removed marker not doubled), and
        the dropped tokens removed everywhere. A partial marker at the end of ``text``
        is held back unless ``final``."""
        state = self._m_state
        if (
            not self._m_pending
            and not self._collapse
            and self._m_firsts[state].isdisjoint(text)
            and not (self._m_lead and self._fresh and state == _M_BEFORE)
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
            if self._m_lead and self._fresh and state == _M_BEFORE:
                # Before any content, a bare body ends marker processing (as a marker does).
                first = _NON_BLANK.search(text, pos)
                bare = self._syntax.bare_body if self._syntax is not None else ""
                if first is not None and first.group() in bare:
                    state = self._m_state = _M_PASS
            pattern = self._m_patterns[state]
            found = pattern.search(text, pos) if pattern is not None else None
            if found is None:
                keep = 0 if final else _partial_in(text, pos, self._m_partials[state])
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

    def _on_marker(self, marker: str) -> None:
        state = self._m_state
        if marker in self._drops:
            if state != _M_INSIDE:
                self._collapse = self._last_space
            self._skip(len(marker))
            return
        if state != _M_INSIDE and marker in self._stoppers:
            # A tool call: marker processing stops (the call's body is the syntax's).
            self._m_emit(marker)
            self._m_state = _M_PASS
            return
        self._skip(len(marker))
        if state == _M_BEFORE and marker in self._starts:
            self._m_state = _M_INSIDE
            self._r_seen = True
        elif state == _M_INSIDE:
            self._m_state = _M_AFTER
        elif marker in self._stray and marker not in self._response_tags:
            assert self._marked_syntax is not None  # (stray ends are its markers)
            self._notes.append(self._marked_syntax.stray_end_note(marker, self._m_at))
        self._collapse = self._last_space

    def _m_emit(self, text: str) -> None:
        """Text of the marked stage: reasoning, or content for the content parser."""
        if not text:
            return
        if self._m_state == _M_INSIDE:
            self._emit_reasoning(text)
            self._skip(len(text))
            return
        if self._collapse:
            stripped = text.lstrip(_BLANKS)
            if len(stripped) < len(text):
                self._skip(len(text) - len(stripped))
                text = stripped
            if not text:
                return
            self._collapse = False
        self._read(text)
        self._last_space = text[-1] in _BLANKS
        if self._fresh and text.strip(_BLANKS):
            self._fresh = False

    def _read(self, text: str) -> None:
        """The content parser: text and tool-call blocks."""
        lt = self._lt
        if lt and lt not in text and self._mode == _TEXT and not self._pending and not self._bare:
            # The steady case: no marker can start in ``text`` (what _text would find).
            self._emit(text)
            self._offset += len(text)
            return
        if self._held:
            self._held.append(text)
            text = "".join(self._held)
            self._held = []
            self._held_len = 0
        # Undecided text (a partial tag, at most a few characters) is only left over at
        # the end of a chunk, so joining it to the next chunk copies each chunk once.
        if self._pending:
            text = self._pending + text
            self._pending = ""
        pos = 0
        if self._bare == _BARE_NEXT:
            pos = self._bare_start(text)
        while pos < len(text):
            pos = self._text(text, pos) if self._mode == _TEXT else self._in_block(text, pos)

    def _bare_start(self, text: str) -> int:
        """Before the content's first character: a bare body opens a block there. The
        index in ``text`` to go on from."""
        found = _NON_BLANK.search(text)
        if found is None:
            self._emit(text)  # (leading whitespace: dropped)
            self._offset += len(text)
            return len(text)
        start = found.start()
        self._emit(text[:start])
        self._offset += start
        assert self._syntax is not None
        if text[start] in self._syntax.bare_body:
            self._bare = _BARE_BLOCK
            self._mode = _JSON
            self._block = []
            self._block_len = self._json_start = 0
            self._scanner = self._syntax.reader()
        else:
            self._bare = _NO_BARE
        text_of = self._text_of
        if (
            self._message is None
            and (text_of is None or not text_of.decoding)
            and self._m_state == _M_OFF
            and self._cite is None
        ):
            self._lanes = True
        return start

    def _text(self, text: str, pos: int) -> int:
        finder = self._finder
        if finder is None:
            found, marker = text.find(self._open, pos), self._open
        else:
            match = finder.search(text, pos)
            found, marker = (-1, "") if match is None else (match.start(), match.group())
        if found == -1:
            if finder is None:
                tail_start = max(pos, len(text) - len(self._open) + 1)
                end = len(text) - _partial_prefix(text[tail_start:], self._open)
            else:
                end = len(text) - _partial_in(text, pos, self._c_partials)
            self._emit(text[pos:end])
            self._offset += end - pos
            self._pending = text[end:]
            return len(text)
        self._emit(text[pos:found])
        self._offset += found - pos
        if marker in self._ends:
            # An end marker outside a block: removed (noted when no call came before).
            if not self._called:
                self._notes.append(closes_no_call(marker, self._offset))
            self._offset += len(marker)
            return found + len(marker)
        self._marker = marker
        self._mode = _OPEN
        self._block = [marker]
        self._block_len = len(marker)
        return found + len(marker)

    def _add_block(self, text: str) -> None:
        if text:
            self._block.append(text)
            self._block_len += len(text)

    def _reject(self, reason: str, pos: int) -> int:
        """The block so far is content; the text from ``pos`` on is read again as text."""
        block = "".join(self._block)
        if self._bare == _BARE_BLOCK:
            self._bare = _NO_BARE  # (a bare body that is not a call is an answer: no note)
        else:
            self._notes.append(kept_as_content(self._marker, self._offset, reason))
        self._emit(block)
        self._offset += len(block) + self._lag
        self._lag = 0
        self._mode = _TEXT
        self._block = []
        self._block_len = 0
        self._scanner = None
        return pos

    def _skip_space(self, text: str, pos: int, non_space: re.Pattern[str] = _NON_SPACE) -> int:
        """Add the whitespace from ``pos`` on to the block; the next non-space index (or
        ``len(text)`` when the chunk ends first)."""
        found = non_space.search(text, pos)
        start = len(text) if found is None else found.start()
        self._add_block(text[pos:start])
        return start

    def _in_block(self, text: str, pos: int) -> int:
        if self._mode == _OPEN:
            start = self._skip_space(text, pos, _NON_BLANK_BODY)
            if start == len(text):
                return start
            assert self._syntax is not None
            refused = self._syntax.body_start(text[start])
            if refused is not None:
                return self._reject(refused, start)
            self._mode = _JSON
            self._json_start = self._block_len
            self._scanner = self._syntax.reader()
            pos = start
        if self._mode == _JSON:
            scanner = self._scanner
            assert scanner is not None
            end = scanner.scan(text, pos)
            if scanner.error is not None:
                self._add_block(text[pos : scanner.stop])
                assert self._syntax is not None
                return self._reject(self._syntax.reader_note(scanner.error), scanner.stop)
            if end is None:
                self._add_block(text[pos:])
                return len(text)
            self._add_block(text[pos:end])
            self._json_end = self._block_len
            if not self._close_tag or scanner.closed:
                # A syntax without a close marker, or a body that read it: the block
                # ends with its body.
                self._finish_block()
                return end
            self._mode = _CLOSE
            pos = end
        # _CLOSE: optional whitespace (part of the block), then "</tool_call>".
        start = self._skip_space(text, pos)
        if start == len(text):
            return start
        candidate = text[start : start + len(self._close_tag)]
        if candidate == self._close_tag:
            self._add_block(candidate)
            self._finish_block()
            return start + len(self._close_tag)
        if start + len(candidate) == len(text) and self._close_tag.startswith(candidate):
            self._pending = candidate
            return len(text)
        assert self._syntax is not None
        return self._reject(self._syntax.not_closed_note(), start)

    def _finish_block(self) -> None:
        block = "".join(self._block)
        json_text = block[self._json_start : self._json_end]
        assert self._syntax is not None
        ids = self._ids
        if ids is None:
            ids = self._ids = ToolCallIds()
        if not self._tools_read:
            self._tools, self._tools_read = self._prepared_tools(self._prompt_facts()), True
        bare = self._bare == _BARE_BLOCK
        if bare:
            self._bare = _NO_BARE
        result = self._syntax.decode(
            json_text, len(self._calls), self._notes, ids, self._tools, bare=bare
        )
        if isinstance(result, str):
            if not bare:
                self._notes.append(not_a_call(self._marker, self._offset, result))
            self._emit(block)
        else:
            self._called = True
            if not result:
                self._notes.append(holds_no_call(self._marker, self._offset))
            index = len(self._calls)
            self._calls += result
            if self._deltas:
                deltas = []
                for call in result:
                    deltas.append(tool_call_delta(index, call))
                    index += 1
                self._flush_text()
                self._out.append(Delta(tool_calls=tuple(deltas)))
        self._offset += len(block) + self._lag
        self._lag = 0
        self._mode = _TEXT
        self._block = []
        self._block_len = 0
        self._scanner = None


class _Trimmed:
    """The end of the citation stages: the parser's trimmed content."""

    __slots__ = ("end", "write")

    def __init__(self, parser: ReleaseStreamParser) -> None:
        self.write = parser._trim
        self.end = _nothing


#: No text (nothing held back).
_NONE: frozenset[str] = frozenset()


def _nothing() -> None:
    pass


def _ignored(text: str) -> None:
    pass


class ReleaseOutputProcessor(OutputProcessor):
    """Parses the output of one :class:`~granite_formatters.Release`."""

    def __init__(self, release: Release) -> None:
        self.release = release

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ReleaseOutputProcessor):
            return NotImplemented
        return self.release == other.release

    def __hash__(self) -> int:
        return hash(self.release.name)

    def transform(
        self,
        model_output: str,
        chat_completion: RequestLike | None = None,
        *,
        stop_reason: str | None = None,
    ) -> AssistantMessage:
        parser = ReleaseStreamParser(self.release, chat_completion, deltas=False)
        parser.feed(model_output)  # (UTF-8 bytes are decoded, as in a stream)
        parser.close(stop_reason=stop_reason)
        message = parser.message
        assert message is not None
        return message

    def stream_parser(self, chat_completion: RequestLike | None = None) -> StreamParser:
        return ReleaseStreamParser(self.release, chat_completion)
