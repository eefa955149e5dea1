"""The protocols every syntax kind implements: turns, reasoning, tool calls.

A :class:`~granite_formatters.Release` composes one value of each kind; the engine's
one renderer and one parser ask these questions and nothing else, so a release whose
syntax the core lacks implements the protocol in its own module (see
``docs/syntaxes.md``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import attrs

if TYPE_CHECKING:
    from .._types import ToolCall
    from ._turns import ToolResults

__all__ = [
    "BlockReader",
    "HistoryCall",
    "HistoryWriter",
    "ReasoningSyntax",
    "ToolCallSyntax",
    "TurnSyntax",
]


class TurnSyntax(Protocol):
    """How a prompt marks its turns (both directions: the parser stops at :attr:`end`)."""

    def header(self, role: str) -> str:
        """What opens a turn of ``role``."""
        ...

    @property
    def end(self) -> str:
        """What closes a turn, its newline included."""
        ...

    @property
    def tool_results(self) -> ToolResults:
        """How a run of ``tool`` messages is wrapped into one turn."""
        ...


class HistoryWriter(Protocol):
    """What the renderer lends a syntax to write caller data into a prompt safely."""

    def text(self, value: str, field: str) -> str:
        """``value`` with the request's special-token policy applied (assistant tokens)."""
        ...

    def json(self, value: Any, field: str) -> str:
        """``value`` written as the template's ``tojson``, the policy applied."""
        ...

    def problem(self, message: str, field: str) -> None:
        """Something the official template drops or garbles: raised in strict mode,
        reported in one warning otherwise."""
        ...


@attrs.frozen
class HistoryCall:
    """One tool call of an assistant history message, unwrapped by the renderer.

    ``name`` is the text the template prints (a non-string or empty name has been
    reported, and ``name_reported`` is set), ``arguments`` the caller's value as given,
    ``field`` its request path.
    """

    name: str
    arguments: Any
    field: str
    name_reported: bool = False


class BlockReader(Protocol):
    """Reads one tool-call block's body incrementally (a fresh reader per block).

    :meth:`scan` is given each chunk of the body in turn; it returns the index in
    ``text`` just past the body once the body is complete, ``None`` while it needs more.
    A body that cannot be valid sets :attr:`error` (why) and :attr:`stop` (the index
    in ``text`` up to which the block is kept).
    """

    error: str | None
    stop: int

    def scan(self, text: str, pos: int) -> int | None:
        """Read ``text`` from ``pos``; the end of the body, or ``None``."""
        ...

    def take(self, chunk: str) -> bool:
        """Whether all of ``chunk`` surely belongs to the body without ending or failing
        it (the parser's steady case: the chunk is then only stored)."""
        ...


class ToolCallSyntax(Protocol):
    """How a release's model calls tools: read from output, written into history."""

    @property
    def open(self) -> str:
        """The marker that opens a block."""
        ...

    @property
    def close(self) -> str:
        """The marker that closes a block."""
        ...

    def body_start(self, char: str) -> str | None:
        """``None`` when a body may start with ``char`` (the first character after the
        open marker and any whitespace), else why the block is not a tool call."""
        ...

    def reader(self) -> BlockReader:
        """A reader for one block's body."""
        ...

    # Optional: ``prepare_tools(tools)``, what ``decode`` is given as ``tools`` (called
    # once per output, so work on the tools is done once); ``reader_error``, how the
    # parser words a reader's error (a format string, default ``"holds JSON {}"``);
    # ``body_name``, what the close marker follows in notes (default ``"its JSON"``);
    # a reader's ``closed`` (true: the body ended with the close marker itself).

    # Optional: ``bare_body``, the characters a body may start with at the very start of
    # the output without its open marker (read only when the request offered tools;
    # such a block that is not a call is content, with no note), and then ``decode``
    # takes ``bare=True`` for it. Absent or empty: no bare bodies.

    def decode(
        self,
        body: str,
        first_index: int,
        notes: list[str],
        new_id: Callable[[], str],
        tools: Sequence[Mapping[str, Any]] | None,
    ) -> list[ToolCall] | str:
        """The calls of one block's body (numbered from ``first_index``), or why there
        are none. Notes about kept-but-odd values go to ``notes``; ``tools`` are the
        request's tools when it was given (a syntax may type values by their schema)."""
        ...

    def write(self, text: str, calls: Iterable[HistoryCall], writer: HistoryWriter) -> str:
        """An assistant history turn's body: its text, then its calls as the template
        writes them (``calls`` is non-empty)."""
        ...


class ReasoningSyntax(Protocol):
    """How a release marks the model's reasoning, in prompts and in output.

    ``options`` are the request's template options, the release's defaults filled in.
    """

    def generation_prompt(self, options: Mapping[str, Any]) -> str:
        """What the prompt ends with after the assistant header."""
        ...

    def last_user_suffix(self, options: Mapping[str, Any]) -> str:
        """Appended to the last user message's text (``""`` for none)."""
        ...

    def history(
        self,
        content: str,
        reasoning: str | None,
        *,
        historical: bool,
        tool_calls: bool,
        options: Mapping[str, Any],
    ) -> str:
        """An assistant history turn's text: ``content`` with the message's
        ``reasoning_content`` folded in; ``historical`` when the turn comes before the
        last user message."""
        ...

    def starts_inside(self, options: Mapping[str, Any]) -> bool:
        """Whether output starts inside reasoning (the prompt opened it)."""
        ...

    @property
    def open(self) -> str:
        """The marker that opens reasoning in output."""
        ...

    @property
    def close(self) -> str:
        """The marker that ends reasoning."""
        ...

    @property
    def after_close(self) -> str:
        """Characters dropped right after :attr:`close` (for example ``"\\n"``)."""
        ...

    def removed_when_off(self, options: Mapping[str, Any]) -> str:
        """An empty reasoning block the model may still write at the start of its output
        when reasoning is off, removed there (``""`` for none)."""
        ...

    # Optional (read with defaults, so a syntax written before them keeps working):
    # ``anywhere`` (default false): reasoning may start anywhere in the content before a
    # tool call, the text before its start marker being content, instead of only at the
    # start of the output; such a syntax also gives ``starts`` and ``ends`` (every
    # marker, ``open`` and ``close`` first), ``response_tags`` (removed from the content
    # before a tool call), ``drop_stray_ends`` (an end marker with no reasoning opened
    # before it is removed, noted) and ``reads(given)``: whether the output is read for
    # reasoning at all, ``given`` being the template options the request sets (absent
    # keys absent, no defaults filled in).
