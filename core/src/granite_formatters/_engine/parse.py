"""The one parser: raw output of a :class:`~granite_formatters.Release` in, a message out.

A driver that feeds the output through its stages, each the reading of one syntax kind
(declared in its syntax module): the marked stage (reasoning that may start anywhere,
tokens dropped everywhere, ``syntax/_marked_stage.py``) or the reasoning phase at the
start of the output (``syntax/_reasoning_stage.py``), then the tool-call stage (text and
tool-call blocks, ``syntax/_call_stage.py``), whose text goes through the citation stages
(``syntax/_citations/``) when the release has them, to the trimmed content
(``content.py``). The stages keep their state on the parser, whose lanes read it.

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
from ..syntax._call_stage import BARE_NEXT as _BARE_NEXT
from ..syntax._call_stage import BODY as _JSON
from ..syntax._call_stage import CLOSE as _CLOSE
from ..syntax._call_stage import MAX_HELD as _MAX_HELD
from ..syntax._call_stage import TEXT as _TEXT
from ..syntax._call_stage import CallStage
from ..syntax._marked_stage import BEFORE as _M_BEFORE
from ..syntax._marked_stage import BLANKS as _BLANKS
from ..syntax._marked_stage import INSIDE as _M_INSIDE
from ..syntax._marked_stage import OFF as _M_OFF
from ..syntax._marked_stage import MarkedStage
from ..syntax._marked_stage import hold_tables as _hold_tables
from ..syntax._marked_stage import lane_firsts as _lane_firsts
from ..syntax._reasoning_stage import ReasoningStage
from .content import ContentOutput, Trimmed
from .prompt_facts import PromptFacts, prompt_facts

if TYPE_CHECKING:
    from .._processors import RequestLike
    from ..release import Release
    from ..syntax._citations.reader import CitationReader

__all__ = ["ReleaseStreamParser"]

# Whitespace between a block's body and its close marker (the lanes').
_WHITESPACE = " \t\r\n"
_SURROGATES_REPLACED = "replaced lone surrogates (not encodable as UTF-8) in the output with U+FFFD"
#: ``str.isascii``, called on a chunk: one call both checks that the chunk is text (it
#: raises TypeError otherwise) and whether it can hold a lone surrogate.
_isascii = str.isascii
#: No text (nothing held back).
_NONE: frozenset[str] = frozenset()


def _ignored(text: str) -> None:
    pass


class ReleaseStreamParser(MarkedStage, ReasoningStage, CallStage, ContentOutput, StreamParser):
    """The incremental parser of one output of a release (see the module docstring)."""

    # Slots: read and written for each chunk, and more than CPython's shared instance
    # dictionaries hold (past 30 names every attribute access takes the slow path).
    __slots__ = (
        *MarkedStage.FIELDS,
        *ReasoningStage.FIELDS,
        *CallStage.FIELDS,
        *ContentOutput.FIELDS,
        "_c_firsts",
        "_c_from",
        "_c_lane",
        "_c_ready",
        "_c_write",
        "_calls",
        "_chunks",
        "_cite",
        "_deltas",
        "_facts",
        "_h_sets",
        "_h_tails",
        "_hold",
        "_holding",
        "_lanes",
        "_message",
        "_message_type",
        "_notes",
        "_request",
        "_role_sent",
        "_settled",
        "_steady",
        "_surrogates",
        "_text_of",
    )

    def __init__(
        self, release: Release, request: RequestLike | None = None, *, deltas: bool = True
    ) -> None:
        """A parser of one output of ``release`` for ``request``; with ``deltas=False``
        (a batch parse, which wants only :attr:`message`) ``feed`` and ``close`` build
        and return no deltas."""
        self._deltas = deltas
        self._message_type: type[AssistantMessage] = AssistantMessage
        self._message: AssistantMessage | None = None
        self._role_sent = False
        self._chunks: list[str] = []
        self._calls: list[ToolCall] = []
        self._notes: list[str] = []
        self._text_of: ChunkText | None = None  # (made when bytes arrive: decoded as UTF-8)
        self._surrogates = False  # (lone surrogates were replaced: noted first)
        # What the request's prompt says, read once as the renderer reads the request:
        # here when the reasoning or a bare body needs it, else when a block first does.
        syntax = release.tool_calls
        self._request = (release, request)
        self._facts: PromptFacts | None = None
        read = release.reasoning is not None or (syntax is not None and syntax.bare_body)
        facts = self._prompt_facts() if read else None
        self._content_setup()
        self._call_setup(release, facts)
        # The citation stages (see CitationReader): the content goes through them, and
        # the message is of their syntax's message type.
        cite = release.citations
        self._cite: CitationReader | None = None
        if cite is not None:
            self._message_type = cite.message_type()
            self._cite = cite.reader(Trimmed(self), self._notes, request)
        self._marked_setup(release, facts, self._bare == _BARE_NEXT)
        self._reasoning_setup(release, facts, self._m_state == _M_OFF)
        #: Whether feed's fast lanes are open (after the reasoning phase, until the
        #: stream is closed): no stage but the tool-call stage reads the chunk.
        self._lanes = False
        self._open_lanes()
        #: Whether the next chunk with no "<" in it is content whole (feed's first lane):
        #: the lanes are open, the content has started and its role was sent, and no
        #: block or partial tag is pending. Set at the end of each chunk that takes the
        #: full path (the only path that changes any of these).
        self._steady = False
        #: Whether the content has started and its role was sent (the cited lane's
        #: trim): set with _steady.
        self._c_ready = False
        # The cited lane (see _settle): the characters that need the scans of the
        # marked stage (in each of its states) or of the tool-call stage.
        marked = self._m_state != _M_OFF
        self._c_firsts = _lane_firsts(self._every, self._m_firsts if marked else None)
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
            markers = self._m_markers if marked else ((),) * 5
            self._h_sets, self._h_tails = _hold_tables(markers, self._every, self._cite.holds())
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
            and self._bare != _BARE_NEXT
            and self._m_state == _M_OFF
            and self._think is None
            and self._cite is None
            and (text_of is None or not text_of.decoding)
        ):
            self._lanes = True

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
        self._marked_end()
        self._reasoning_end()
        self._lanes = self._steady = False
        self._settled = None
        self._calls_end()
        cited: dict[str, Any] = {}
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
        self._message = self._message_type(
            content="".join(self._content),
            reasoning_content=self._reasoning_text(),
            tool_calls=self._calls,
            raw_content="".join(self._chunks),
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

    # ------------------------------------------------------------------ stages

    def _consume(self, text: str) -> None:
        """Feed ``text`` to the stages."""
        if self._m_state != _M_OFF:
            self._marked(text)
            return
        if self._think is not None:
            text = self._reason(text)
            if not text:
                return
        self._read(text)

    def _emit(self, text: str) -> None:
        """Content (through the citation stages when there are any)."""
        if self._cite is not None:
            self._cite.write(text)
        else:
            self._trim(text)
