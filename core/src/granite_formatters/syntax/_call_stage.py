"""The parser's tool-call stage: text and tool-call blocks, generic over a release's
:class:`~granite_formatters.syntax.ToolCallSyntax`.

It finds the syntax's open markers (and the end markers the release removes) in the
text, holds back a partial marker at the end of a chunk only while it can still become
the marker, and hands a block's body to the syntax's :class:`BlockReader` (a fresh one
per block), which says where the body ends or why it fails; the syntax decodes a
complete body into calls. A block that is malformed or unclosed is content, with a
note (the syntax words why; :mod:`._block_notes` words where). A body the syntax may
read without its marker at the start of the content (a bare body) is read the same way.

:class:`CallStage` is an object the parser (``_engine/parse.py``) holds and feeds, with
its own state; the steady cases of a block's body (a chunk that only extends it, or a
partial marker) are taken by :meth:`CallStage.take`, the parser's lane.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from .._streaming import Delta, tool_call_delta
from .._types import ToolCall, ToolCallIds
from ._block_notes import closes_no_call, holds_no_call, kept_as_content, not_a_call
from ._markers import marker_pattern, partial_in, partials

if TYPE_CHECKING:
    from .._engine.content import ContentOutput
    from .._engine.prompt_facts import PromptFacts
    from ..release import Release
    from ._markers import Partials
    from ._protocols import BlockReader, ToolCallSyntax

__all__ = ["CallMarkers", "CallStage"]

#: The stage's modes: in the text, after an open marker (before the body), inside the
#: body, after the body (before the close marker).
TEXT, OPEN, BODY, CLOSE = range(4)
#: A bare body (see ToolCallSyntax): none, the content's first character still to come,
#: inside one.
NO_BARE, BARE_NEXT, BARE_BLOCK = range(3)
#: At most this many characters of a block's body are held back unread (see
#: BlockReader.holds): a body that fails is told within this many more characters.
MAX_HELD = 256

# Whitespace between a block's body and its close marker.
_WHITESPACE = " \t\r\n"
_NON_SPACE = re.compile(r"[^ \t\r\n]")
# Python's ASCII blanks: skipped between an open marker and its body, and before the
# content's first character (which a bare body may be).
_NON_BLANK = re.compile(r"[^ \t\n\r\f\v]")


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


class CallMarkers:
    """The markers the tool-call stage finds for a release, and their searches (made
    once per release: see ``_engine/processor.py``)."""

    __slots__ = ("close", "ends", "finder", "first", "markers", "open", "partials", "syntax")

    def __init__(self, release: Release) -> None:
        syntax: ToolCallSyntax | None = release.tool_calls
        self.syntax = syntax
        #: The open marker (one that never matches without tool calls).
        self.open = syntax.open if syntax is not None else "\x00" * 2
        self.close = syntax.close if syntax is not None else ""
        # The release's further open markers and the end markers it removes (3.x):
        # found by one pattern when there are any.
        self.ends: tuple[str, ...] = release.tool_call_ends if syntax is not None else ()
        every = (self.open, *release.tool_call_markers, *self.ends) if syntax else ()
        self.markers: tuple[str, ...] = tuple(dict.fromkeys(every)) or (self.open,)
        self.partials: Partials = partials(self.markers)
        self.finder: re.Pattern[str] | None = None
        self.first = self.open[0]  # (of every marker: "" when they differ)
        if len(self.markers) > 1:
            self.finder = marker_pattern(self.markers)
            if len({marker[0] for marker in self.markers}) > 1:
                self.first = ""  # (no chunk is free of every first character: no lanes)


class CallStage:
    """The tool-call stage of the parser (see the module docstring)."""

    __slots__ = (
        "_bare",
        "_block",
        "_block_len",
        "_c_partials",
        "_called",
        "_calls",
        "_close_tag",
        "_decided",
        "_emit",
        "_ends",
        "_facts",
        "_finder",
        "_held",
        "_held_len",
        "_ids",
        "_json_end",
        "_json_start",
        "_lag",
        "_marker",
        "_mode",
        "_notes",
        "_offset",
        "_open",
        "_out",
        "_pending",
        "_scanner",
        "_syntax",
        "_tools",
        "_tools_read",
        "first",
        "markers",
    )

    def __init__(
        self,
        table: CallMarkers,
        facts: PromptFacts | None,
        read_facts: Callable[[], PromptFacts],
        emit: Callable[[str], None],
        out: ContentOutput | None,
        calls: list[ToolCall],
        notes: list[str],
        decided: Callable[[], None],
    ) -> None:
        """The stage for an output of the release whose markers are ``table``
        (``facts``: the prompt's, when read already, else ``read_facts`` reads them
        when a block needs them): the text goes to ``emit``, the calls to ``calls``,
        their deltas to ``out`` (``None``: none are made), the notes to ``notes``, and
        ``decided`` is called once a bare body is decided. (Positional: keywords cost
        a short parse measurably, the stages being built for each.)"""
        self._emit = emit
        self._calls = calls
        self._notes = notes
        self._out = out
        self._facts = read_facts
        self._decided = decided
        syntax = self._syntax = table.syntax
        self._open = self._marker = table.open  # (_marker: of the block being read)
        self._close_tag = table.close
        self._ends = table.ends
        self._finder = table.finder
        self._c_partials = table.partials
        #: The first character of every marker ("" when they differ): a chunk without
        #: it holds no marker and no part of one.
        self.first = table.first
        #: Every marker the stage finds in the text.
        self.markers = table.markers
        self._called = False  # a block has held calls: a later end marker is silent
        self._offset = 0  # the offset in the output of the start of _pending / the block
        self._mode = TEXT
        self._pending = ""  # a partial open marker (TEXT) or close marker (CLOSE)
        self._block: list[str] = []  # the block so far, from its open marker
        self._block_len = self._json_start = self._json_end = 0  # (the body's, in it)
        self._lag = 0  # text a stage before this one removed inside a block (see skip)
        self._scanner: BlockReader | None = None
        # Body text the reader let the lane hold back unread (see BlockReader.holds):
        # read with the next chunk that is not held.
        self._held: list[str] = []
        self._held_len = 0
        self._ids: ToolCallIds | None = None  # made for the first call that needs an id
        # The tools, as the syntax prepares them: when the first block ends (an answer
        # without calls never pays for them), or here for a syntax with a bare body,
        # read when the request offered tools.
        read = facts is not None and syntax is not None and bool(syntax.bare_body)
        self._tools: Any = self._prepared_tools(facts) if read and facts is not None else None
        self._tools_read = read
        self._bare = BARE_NEXT if read and self._tools else NO_BARE

    @property
    def idle(self) -> bool:
        """In the text with nothing pending, no bare body to come or inside one."""
        return self._mode == TEXT and not self._pending and not self._bare

    @property
    def held(self) -> int:
        """The characters of a block's body held back unread (at most :data:`MAX_HELD`)."""
        return self._held_len

    @property
    def bare_next(self) -> bool:
        """A bare body may still open at the content's first character."""
        return self._bare == BARE_NEXT

    def take(self, text: str) -> bool:
        """The steady cases of the parser's lane (the output is read by this stage
        alone): whether ``text`` only extends a block's body, is body text that cannot
        end it (held, read with the next chunk), extends a marker begun so far (or begins
        one), or is whitespace after a body, and was taken so (what :meth:`read` would
        do, its output none)."""
        mode = self._mode
        scanner = self._scanner
        if mode == BODY and scanner is not None:
            waiting = self._held_len
            if not waiting and scanner.take(text):
                self._block.append(text)
                self._block_len += len(text)
                return True
            if waiting + len(text) <= MAX_HELD and scanner.holds(text, self._held):
                self._held.append(text)
                self._held_len = waiting + len(text)
                return True
        if mode == CLOSE or (mode == TEXT and self._finder is None):
            pending = self._pending
            tag = self._open if mode == TEXT else self._close_tag
            if (pending or text[0] == self.first) and len(pending) + len(text) < len(tag):
                extended = pending + text
                if tag.startswith(extended):
                    self._pending = extended
                    return True
            elif mode == CLOSE and not pending and not text.strip(_WHITESPACE):
                self._add_block(text)
                return True
        return False

    def _prepared_tools(self, facts: PromptFacts) -> Any:
        """The tools the prompt lists, as the syntax reads them (once per output)."""
        syntax = self._syntax
        tools: list[Mapping[str, Any]] | None = facts.tools
        return tools if syntax is None else syntax.prepare_tools(tools)

    def skip(self, size: int) -> None:
        """``size`` characters of the output that this stage does not see."""
        if self._mode == TEXT:
            self._offset += size
        else:
            self._lag += size  # (inside a block: counted when the block ends)

    def read(self, text: str) -> None:
        """Read ``text``: text and tool-call blocks."""
        lt = self.first
        if lt and lt not in text and self._mode == TEXT and not self._pending and not self._bare:
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
        if self._bare == BARE_NEXT:
            pos = self._bare_start(text)
        while pos < len(text):
            pos = self._text(text, pos) if self._mode == TEXT else self._in_block(text, pos)

    def end(self) -> None:
        """The output ended: held body text is read, and what is left undecided (a
        partial marker, an unfinished block, noted) is content."""
        if self._held:
            self.read("")
        if self._mode == TEXT:
            self._emit(self._pending)
            self._pending = ""
            return
        block = "".join(self._block) + (self._pending if self._mode == CLOSE else "")
        assert self._syntax is not None
        why = self._syntax.unfinished_note()
        if self._bare != BARE_BLOCK:
            self._notes.append(kept_as_content(self._marker, self._offset, why))
        self._emit(block)

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
            self._bare = BARE_BLOCK
            self._mode = BODY
            self._block = []
            self._block_len = self._json_start = 0
            self._scanner = self._syntax.reader()
        else:
            self._bare = NO_BARE
        self._decided()
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
                end = len(text) - partial_in(text, pos, self._c_partials)
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
        self._mode = OPEN
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
        if self._bare == BARE_BLOCK:
            self._bare = NO_BARE  # (a bare body that is not a call is an answer: no note)
        else:
            self._notes.append(kept_as_content(self._marker, self._offset, reason))
        self._emit(block)
        self._block_done(block)
        return pos

    def _block_done(self, block: str) -> None:
        """Back to the text after ``block``."""
        self._offset += len(block) + self._lag
        self._lag = 0
        self._mode = TEXT
        self._block = []
        self._block_len = 0
        self._scanner = None

    def _skip_space(self, text: str, pos: int, non_space: re.Pattern[str] = _NON_SPACE) -> int:
        """Add the whitespace from ``pos`` on to the block; the next non-space index (or
        ``len(text)`` when the chunk ends first)."""
        found = non_space.search(text, pos)
        start = len(text) if found is None else found.start()
        self._add_block(text[pos:start])
        return start

    def _in_block(self, text: str, pos: int) -> int:
        assert self._syntax is not None
        if self._mode == OPEN:
            start = self._skip_space(text, pos, _NON_BLANK)
            if start == len(text):
                return start
            refused = self._syntax.body_start(text[start])
            if refused is not None:
                return self._reject(refused, start)
            self._mode = BODY
            self._json_start = self._block_len
            self._scanner = self._syntax.reader()
            pos = start
        if self._mode == BODY:
            scanner = self._scanner
            assert scanner is not None
            end = scanner.scan(text, pos)
            if scanner.error is not None:
                self._add_block(text[pos : scanner.stop])
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
            self._mode = CLOSE
            pos = end
        # CLOSE: optional whitespace (part of the block), then the close marker.
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
        return self._reject(self._syntax.not_closed_note(), start)

    def _finish_block(self) -> None:
        block = "".join(self._block)
        body = block[self._json_start : self._json_end]
        assert self._syntax is not None
        ids = self._ids
        if ids is None:
            ids = self._ids = ToolCallIds()
        if not self._tools_read:
            self._tools, self._tools_read = self._prepared_tools(self._facts()), True
        bare = self._bare == BARE_BLOCK
        if bare:
            self._bare = NO_BARE
        calls, notes = self._calls, self._notes
        result = self._syntax.decode(body, len(calls), notes, ids, self._tools, bare=bare)
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
            if self._out is not None:
                deltas = []
                for call in result:
                    deltas.append(tool_call_delta(index, call))
                    index += 1
                self._out.put(Delta(tool_calls=tuple(deltas)))
        self._block_done(block)
