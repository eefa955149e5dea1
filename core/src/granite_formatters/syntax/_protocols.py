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
    import datetime

    from .._engine.render import ReleaseInputProcessor
    from .._engine.request import Problems
    from .._special_tokens import SpecialTokenPolicy
    from .._types import ToolCall
    from ._context_turns import DocumentsTurn, DocumentTurnPerDocument
    from ._turns import ToolResults

__all__ = [
    "BlockReader",
    "HistoryCall",
    "Head",
    "HistoryWriter",
    "Layout",
    "LayoutWriter",
    "MarkedReasoningSyntax",
    "OptionSet",
    "ReasoningSyntax",
    "ToolCallDefaults",
    "ToolCallSyntax",
    "TurnContext",
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
    #: Whether the body ended with the block's close marker itself (no close to read).
    closed: bool

    def scan(self, text: str, pos: int) -> int | None:
        """Read ``text`` from ``pos``; the end of the body, or ``None``."""
        ...

    def take(self, chunk: str) -> bool:
        """Whether all of ``chunk`` surely belongs to the body without ending or failing
        it (the parser's steady case: the chunk is then only stored)."""
        ...

    def holds(self, chunk: str, held: Sequence[str]) -> bool:
        """Whether the parser may hold ``chunk`` back unread after the chunks ``held``
        back before it (the body surely does not end in it): they are then given to
        :meth:`scan` with what follows. (The parser bounds what it holds, so a body that
        fails is still told within a few hundred characters.)"""
        ...


class ToolCallDefaults:
    """Defaults of :class:`ToolCallSyntax` members that most syntaxes share: no bare
    bodies, the tools given to ``decode`` as the request has them."""

    __slots__ = ()

    bare_body = ""

    def prepare_tools(self, tools: Sequence[Mapping[str, Any]] | None) -> Any:
        return tools


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

    @property
    def bare_body(self) -> str:
        """The characters a body may start with at the very start of the output without
        its open marker (read only when the request offered tools; such a block that is
        not a call is content, with no note; ``decode`` then gets ``bare=True``). Empty:
        no bare bodies."""
        ...

    def prepare_tools(self, tools: Sequence[Mapping[str, Any]] | None) -> Any:
        """What :meth:`decode` is given as ``tools`` (called once per output, so work on
        the tools is done once)."""
        ...

    def reader_note(self, error: str) -> str:
        """Why a block is not a call, from its reader's ``error`` (the syntax's words)."""
        ...

    def not_closed_note(self) -> str:
        """Why a block whose body is not followed by :attr:`close` is not a call."""
        ...

    def unfinished_note(self) -> str:
        """Why a block that the output ends inside is not a call."""
        ...

    def decode(
        self,
        body: str,
        first_index: int,
        notes: list[str],
        new_id: Callable[[], str],
        tools: Any,
        *,
        bare: bool = False,
    ) -> list[ToolCall] | str:
        """The calls of one block's body (numbered from ``first_index``), or why there
        are none. Notes about kept-but-odd values go to ``notes``; ``tools`` are the
        request's tools as :meth:`prepare_tools` made them (a syntax may type values by
        their schema); ``bare``: a body met without its open marker."""
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

    def marked(self) -> MarkedReasoningSyntax | None:
        """The syntax itself when its reasoning may start anywhere in the content before
        a tool call (the text before its start marker being content), instead of only at
        the start of the output; ``None`` otherwise."""
        ...


class MarkedReasoningSyntax(ReasoningSyntax, Protocol):
    """Reasoning that may start anywhere before a tool call (see
    :meth:`ReasoningSyntax.marked`): every marker and how the parser treats them."""

    @property
    def starts(self) -> tuple[str, ...]:
        """Every start marker, :attr:`open` first."""
        ...

    @property
    def ends(self) -> tuple[str, ...]:
        """Every end marker, :attr:`close` first."""
        ...

    @property
    def response_tags(self) -> tuple[str, ...]:
        """Tags removed from the content before a tool call."""
        ...

    @property
    def drop_stray_ends(self) -> bool:
        """Whether an end marker with no reasoning opened before it is removed (noted)."""
        ...

    def reads(self, given: Mapping[str, Any]) -> bool:
        """Whether the output is read for reasoning at all, ``given`` being the template
        options the request sets (absent keys absent, no defaults filled in)."""
        ...

    def stray_end_note(self, marker: str, offset: int) -> str:
        """The note for an end ``marker`` removed at ``offset`` with no reasoning opened."""
        ...

    def unclosed_note(self) -> str:
        """The note for reasoning that the output ends inside."""
        ...


#: A set of template options as the render loop keeps it: the options (the release's
#: defaults filled in), the generation prompt kept with them (``None``: none), and a
#: dict the layout may keep what it plans for them in (see :meth:`LayoutWriter.head`; a
#: fresh one for options made for one call). Kept option sets are read only; the same
#: data gives the same set.
OptionSet = tuple[Mapping[str, Any], "str | None", "dict[Any, Any]"]

#: What a layout writes before the messages (:meth:`LayoutWriter.head`): the prompt's
#: first pieces, the index of the first message not yet written, the index of the last
#: user message (given back in :data:`TurnContext`; -1: none or not read), the index of
#: a message the layout writes itself whatever it holds (-1: none), the generation
#: prompt.
Head = tuple[list[str], int, int, int, str]

#: What the render loop gives :meth:`LayoutWriter.turn` about the request: the messages,
#: the caller's raw mapping and its raw messages (or ``None``), whether the request is a
#: plain dict, the special-token policy, the problems, the template options, the index
#: of the last user message (or -1) and of the first message ``head`` did not write.
TurnContext = tuple[
    Sequence[Any],
    "Mapping[str, Any] | None",
    Any,
    bool,
    "SpecialTokenPolicy",
    "Problems",
    Mapping[str, Any],
    int,
    int,
]


class LayoutWriter(Protocol):
    """A release's layout bound to its input processor: what the renderer's one loop
    asks (the system turn and what precedes the messages, each message it does not write
    as it is, the generation prompt).

    The loop writes a message as ``header(role) + text + end`` itself when it has no
    tool calls, its role is in :attr:`verbatim_roles`, its text is an exact ``str``
    without the special tokens' sentinel and it is not the message ``head`` marked; any
    other message is given to :meth:`turn`."""

    @property
    def verbatim_roles(self) -> frozenset[str]:
        """The roles whose plain messages the loop writes as they are."""
        ...

    @property
    def documents_turns(self) -> DocumentsTurn | DocumentTurnPerDocument | None:
        """The documents turns the processor writes for the layout (``None``: none)."""
        ...

    @property
    def reads_typed(self) -> bool:
        """Whether :meth:`typed_options` may read a typed options object."""
        ...

    def typed_options(self, kwargs: Any) -> OptionSet | None:
        """A typed options object's :data:`OptionSet`, read by attribute; ``None``: read
        it by name."""
        ...

    def options_prompt(self, options: Mapping[str, Any]) -> str | None:
        """The generation prompt kept with checked ``options`` (``None``: none)."""
        ...

    def head(
        self,
        request: Any,
        plain: bool,
        messages: Sequence[Any],
        tools: Any,
        tools_field: str,
        documents: Any,
        option_set: OptionSet,
        raw: Mapping[str, Any] | None,
        raw_messages: Any,
        policy: SpecialTokenPolicy,
        problems: Problems,
        today: datetime.date | None,
    ) -> Head:
        """What comes before the messages (see :data:`Head`). What depends only on the
        options, the date and the request's shape may be kept in the option set's dict
        (bounded), never what a call's strings are."""
        ...

    def turn(
        self,
        out: list[str],
        index: int,
        role: Any,
        text: Any,
        calls: Sequence[Any] | None,
        context: TurnContext,
    ) -> None:
        """Append message ``index`` (role, text and calls as read) to ``out``."""
        ...


class Layout(Protocol):
    """Where a release puts the system text, tools and documents, and how it writes
    each turn (:class:`~granite_formatters.syntax.DatedLayout`,
    :class:`~granite_formatters.syntax.SystemBlocksLayout`)."""

    def writer(self, processor: ReleaseInputProcessor) -> LayoutWriter:
        """The layout bound to ``processor`` (made once per processor)."""
        ...
