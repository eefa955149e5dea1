"""The parser's tool-call stage: text and tool-call blocks, generic over a release's
:class:`~granite_formatters.syntax.ToolCallSyntax`.

It finds the syntax's open markers (and the end markers the release removes) in the
text, holds back a partial marker at the end of a chunk only while it can still become
the marker, and hands a block's body to the syntax's :class:`BlockReader` (a fresh one
per block), which says where the body ends or why it fails; the syntax decodes a
complete body into calls. A block that is malformed or unclosed is content, with a
note (the syntax words why; :mod:`._block_notes` words where). A body the syntax may
read without its marker at the start of the content (a bare body) is read the same way.

:class:`CallStage` is a part of the parser (``_engine/parse.py``): it keeps its state
on the parser, whose fast lanes read it, and declares what it uses of the parser.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from .._streaming import Delta, tool_call_delta
from .._types import ToolCall, ToolCallIds
from ._block_notes import closes_no_call, holds_no_call, kept_as_content, not_a_call
from ._markers import marker_pattern, partial_in, partials

if TYPE_CHECKING:
    from .._engine.prompt_facts import PromptFacts
    from ..release import Release
    from ._markers import Partials
    from ._protocols import BlockReader, ToolCallSyntax

__all__ = ["BARE_BLOCK", "BARE_NEXT", "BODY", "CLOSE", "MAX_HELD", "NO_BARE", "TEXT", "CallStage"]

#: The stage's modes: in the text, after an open marker (before the body), inside the
#: body, after the body (before the close marker).
TEXT, OPEN, BODY, CLOSE = range(4)
#: A bare body (see ToolCallSyntax): none, the content's first character still to come,
#: inside one.
NO_BARE, BARE_NEXT, BARE_BLOCK = range(3)
#: At most this many characters of a block's body are held back unread (see
#: BlockReader.holds): a body that fails is told within this many more characters.
MAX_HELD = 256

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


class CallStage:
    """The tool-call stage of the parser (see the module docstring)."""

    #: The parser's slots that hold this stage's state.
    FIELDS: ClassVar[tuple[str, ...]] = (
        "_bare",
        "_block",
        "_block_len",
        "_c_partials",
        "_called",
        "_close_tag",
        "_ends",
        "_every",
        "_finder",
        "_held",
        "_held_len",
        "_ids",
        "_json_end",
        "_json_start",
        "_lag",
        "_lt",
        "_marker",
        "_mode",
        "_offset",
        "_open",
        "_pending",
        "_scanner",
        "_syntax",
        "_tools",
        "_tools_read",
    )

    _syntax: ToolCallSyntax | None
    _open: str  # the open marker (one that never matches without tool calls)
    _close_tag: str
    _lt: str  # the first character of every marker ("" when they differ)
    _marker: str  # the marker of the block being read
    _ends: tuple[str, ...]
    _every: tuple[str, ...]
    _finder: re.Pattern[str] | None
    _c_partials: Partials
    _called: bool  # a block has held calls: a later end marker is silent
    _offset: int  # the offset in the output of the start of _pending / the block
    _mode: int
    _pending: str  # a partial open marker (TEXT) or close marker (CLOSE)
    _block: list[str]  # the block so far, from its open marker
    _block_len: int
    _json_start: int  # the body's offsets inside the block
    _json_end: int
    _scanner: BlockReader | None
    # Body text the reader let feed hold back unread (see BlockReader.holds): read with
    # the next chunk that feed does not hold.
    _held: list[str]
    _held_len: int
    _bare: int
    _lag: int  # text a stage before this one removed inside a block (see _skip)
    _ids: ToolCallIds | None  # made for the first call that needs an id
    _tools: Any  # the tools the prompt lists, as the syntax prepared them
    _tools_read: bool

    # What the stage uses of the parser.
    _notes: list[str]
    _calls: list[ToolCall]
    _deltas: bool
    _out: list[Delta]
    _emit: Callable[[str], None]  # content
    _flush_text: Callable[[], None]
    _prompt_facts: Callable[[], PromptFacts]
    _open_lanes: Callable[[], None]  # the bare body is decided

    def _call_setup(self, release: Release, facts: PromptFacts | None) -> None:
        """The stage's state for an output of ``release`` (``facts``: the prompt's, when
        read already)."""
        syntax = self._syntax = release.tool_calls
        self._open = syntax.open if syntax is not None else "\x00" * 2
        self._close_tag = syntax.close if syntax is not None else ""
        self._lt = self._open[0]
        # The release's further open markers and the end markers it removes (3.x):
        # found by one pattern when there are any.
        self._marker = self._open
        self._ends = release.tool_call_ends if syntax is not None else ()
        every = (self._open, *release.tool_call_markers, *self._ends) if syntax else ()
        self._every = every = tuple(dict.fromkeys(every)) or (self._open,)
        self._finder = None
        self._c_partials = partials(every)
        if len(every) > 1:
            self._finder = marker_pattern(every)
            if len({marker[0] for marker in every}) > 1:
                self._lt = ""  # (no chunk is free of every first character: no lanes)
        self._called = False
        self._offset = 0
        self._mode = TEXT
        self._pending = ""
        self._block = []
        self._block_len = self._json_start = self._json_end = self._lag = 0
        self._scanner = None
        self._held = []
        self._held_len = 0
        self._ids = None
        # The tools, as the syntax prepares them: when the first block ends (an answer
        # without calls never pays for them), or here for a syntax with a bare body,
        # read when the request offered tools.
        read = facts is not None and syntax is not None and bool(syntax.bare_body)
        self._tools = self._prepared_tools(facts) if read and facts is not None else None
        self._tools_read = read
        self._bare = BARE_NEXT if read and self._tools else NO_BARE

    def _prepared_tools(self, facts: PromptFacts) -> Any:
        """The tools the prompt lists, as the syntax reads them (once per output)."""
        syntax = self._syntax
        tools: list[Mapping[str, Any]] | None = facts.tools
        return tools if syntax is None else syntax.prepare_tools(tools)

    def _skip(self, size: int) -> None:
        """``size`` characters of the output that this stage does not see."""
        if self._mode == TEXT:
            self._offset += size
        else:
            self._lag += size  # (inside a block: counted when the block ends)

    def _read(self, text: str) -> None:
        """Read ``text``: text and tool-call blocks."""
        lt = self._lt
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

    def _calls_end(self) -> None:
        """The output ended: held body text is read, and what is left undecided (a
        partial marker, an unfinished block, noted) is content."""
        if self._held:
            self._read("")
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
        self._open_lanes()
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
            self._tools, self._tools_read = self._prepared_tools(self._prompt_facts()), True
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
            if self._deltas:
                deltas = []
                for call in result:
                    deltas.append(tool_call_delta(index, call))
                    index += 1
                self._flush_text()
                self._out.append(Delta(tool_calls=tuple(deltas)))
        self._block_done(block)
