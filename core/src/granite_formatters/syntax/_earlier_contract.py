"""Syntaxes written against an earlier syntax contract, adapted once when a release is built.

Earlier contracts documented some members of :class:`ToolCallSyntax` and
:class:`ReasoningSyntax` as optional, read by the parser with defaults. The protocols now
declare them, and the parser reads them without defaults. So that a plugin's syntax written
before keeps working, :class:`~granite_formatters.Release` passes its syntaxes through
:func:`current_tool_calls` and :func:`current_reasoning`: a syntax lacking a member added
since is wrapped in an adapter that gives the old default (the reading by name with a
default happens here, once, and nowhere in the parser); a syntax lacking a member that was
always required is refused there, naming the member.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import attrs

if TYPE_CHECKING:
    from ..types import ToolCall
    from ._protocols import (
        BlockReader,
        HistoryCall,
        HistoryWriter,
        ReasoningSyntax,
        ToolCallSyntax,
    )

__all__ = ["current_reasoning", "current_tool_calls"]

#: The members every tool-call syntax has always given.
_TOOL_CALLS_REQUIRED = ("open", "close", "body_start", "reader", "decode", "write")
#: The members added since (the earlier contract read them with defaults).
_TOOL_CALLS_ADDED = (
    "bare_body",
    "prepare_tools",
    "reader_note",
    "not_closed_note",
    "unfinished_note",
)
_REASONING_REQUIRED = (
    "generation_prompt",
    "last_user_suffix",
    "history",
    "starts_inside",
    "open",
    "close",
    "after_close",
    "removed_when_off",
)
#: What a reasoning syntax with ``anywhere`` true has always given besides.
_ANYWHERE_REQUIRED = ("starts", "ends", "response_tags", "drop_stray_ends", "reads")


def _check(syntax: object, field: str, kind: str, members: Iterable[str]) -> None:
    missing = [name for name in members if not hasattr(syntax, name)]
    if missing:
        names = ", ".join(repr(name) for name in missing)
        raise TypeError(
            f"Release.{field}: {type(syntax).__name__} has no {names}, which every "
            f"{kind} gives (see docs/syntaxes.md)"
        )


def current_tool_calls(syntax: ToolCallSyntax | None) -> ToolCallSyntax | None:
    """``syntax`` as the parser reads it: itself when it gives every member of
    :class:`ToolCallSyntax`, else adapted (raises ``TypeError`` naming a member that was
    always required and is missing)."""
    if syntax is None or isinstance(syntax, _EarlierToolCalls):
        return syntax
    _check(syntax, "tool_calls", "ToolCallSyntax", _TOOL_CALLS_REQUIRED)
    if all(hasattr(syntax, name) for name in _TOOL_CALLS_ADDED):
        return syntax
    return _EarlierToolCalls(syntax)


def current_reasoning(syntax: ReasoningSyntax | None) -> ReasoningSyntax | None:
    """``syntax`` as the parser reads it: itself when it gives ``marked()``, else
    adapted (raises ``TypeError`` naming a member that was always required and is
    missing)."""
    if syntax is None or isinstance(syntax, _EarlierReasoning):
        return syntax
    _check(syntax, "reasoning", "ReasoningSyntax", _REASONING_REQUIRED)
    if hasattr(syntax, "marked"):
        return syntax
    if not getattr(syntax, "anywhere", False):
        return _EarlierReasoning(syntax, anywhere=False)
    _check(syntax, "reasoning", "ReasoningSyntax with anywhere", _ANYWHERE_REQUIRED)
    return _EarlierReasoning(
        syntax,
        anywhere=True,
        starts=tuple(syntax.starts),  # type: ignore[attr-defined]
        ends=tuple(syntax.ends),  # type: ignore[attr-defined]
        response_tags=tuple(syntax.response_tags),  # type: ignore[attr-defined]
        drop_stray_ends=bool(syntax.drop_stray_ends),  # type: ignore[attr-defined]
    )


class _EarlierBlockReader:
    """A block reader written before ``closed`` and ``holds``: ``closed`` read from the
    reader when it sets it (default false), nothing held."""

    __slots__ = ("_inner", "closed", "error", "stop")

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self.error: str | None = None
        self.stop = 0
        self.closed = False

    def scan(self, text: str, pos: int) -> int | None:
        inner = self._inner
        end: int | None = inner.scan(text, pos)
        self.error = inner.error
        self.stop = inner.stop
        self.closed = bool(getattr(inner, "closed", False))
        return end

    def take(self, chunk: str) -> bool:
        return bool(self._inner.take(chunk))

    def holds(self, chunk: str, held: Sequence[str]) -> bool:
        return False


@attrs.frozen
class _EarlierToolCalls:
    """A tool-call syntax written against an earlier contract, with the defaults that
    contract gave: no bare bodies, tools as given, notes worded as ``reader_error``
    (default ``"holds JSON {}"``) and ``body_name`` (default ``"its JSON"``) say."""

    inner: Any
    # (Read from ``inner`` once; equal when ``inner`` is, a pickled copy included.)
    bare_body: str = attrs.field(init=False, eq=False)
    _reader_error: str = attrs.field(init=False, eq=False)
    _body_name: str = attrs.field(init=False, eq=False)
    _prepare: Callable[[Any], Any] | None = attrs.field(init=False, eq=False)

    def __attrs_post_init__(self) -> None:
        inner = self.inner
        object.__setattr__(self, "bare_body", getattr(inner, "bare_body", "") or "")
        object.__setattr__(self, "_reader_error", getattr(inner, "reader_error", "holds JSON {}"))
        object.__setattr__(self, "_body_name", getattr(inner, "body_name", "its JSON"))
        object.__setattr__(self, "_prepare", getattr(inner, "prepare_tools", None))

    @property
    def open(self) -> str:
        return str(self.inner.open)

    @property
    def close(self) -> str:
        return str(self.inner.close)

    def body_start(self, char: str) -> str | None:
        why: str | None = self.inner.body_start(char)
        return why

    def reader(self) -> BlockReader:
        return _EarlierBlockReader(self.inner.reader())

    def prepare_tools(self, tools: Sequence[Mapping[str, Any]] | None) -> Any:
        return tools if self._prepare is None else self._prepare(tools)

    def reader_note(self, error: str) -> str:
        return self._reader_error.format(error)

    def not_closed_note(self) -> str:
        return f"is not closed by {self.close} after {self._body_name}"

    def unfinished_note(self) -> str:
        return f"is not closed by {self.close}" if self.close else "is cut off"

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
        inner = self.inner
        if bare:  # (only a syntax with bare_body meets one; it took bare=True then)
            result: list[ToolCall] | str = inner.decode(
                body, first_index, notes, new_id, tools, bare=True
            )
        else:
            result = inner.decode(body, first_index, notes, new_id, tools)
        return result

    def write(self, text: str, calls: Iterable[HistoryCall], writer: HistoryWriter) -> str:
        return str(self.inner.write(text, calls, writer))


@attrs.frozen
class _EarlierReasoning:
    """A reasoning syntax written against an earlier contract (no ``marked()``): marked
    when it says ``anywhere``, with the markers it gives and the notes worded as that
    contract's parser worded them."""

    inner: Any
    anywhere: bool
    starts: tuple[str, ...] = ()
    ends: tuple[str, ...] = ()
    response_tags: tuple[str, ...] = ()
    drop_stray_ends: bool = False

    @property
    def open(self) -> str:
        return str(self.inner.open)

    @property
    def close(self) -> str:
        return str(self.inner.close)

    @property
    def after_close(self) -> str:
        return str(self.inner.after_close)

    def generation_prompt(self, options: Mapping[str, Any]) -> str:
        return str(self.inner.generation_prompt(options))

    def last_user_suffix(self, options: Mapping[str, Any]) -> str:
        return str(self.inner.last_user_suffix(options))

    def history(
        self,
        content: str,
        reasoning: str | None,
        *,
        historical: bool,
        tool_calls: bool,
        options: Mapping[str, Any],
    ) -> str:
        return str(
            self.inner.history(
                content, reasoning, historical=historical, tool_calls=tool_calls, options=options
            )
        )

    def starts_inside(self, options: Mapping[str, Any]) -> bool:
        return bool(self.inner.starts_inside(options))

    def removed_when_off(self, options: Mapping[str, Any]) -> str:
        return str(self.inner.removed_when_off(options))

    def marked(self) -> _EarlierReasoning | None:
        return self if self.anywhere else None

    def reads(self, given: Mapping[str, Any]) -> bool:
        return bool(self.inner.reads(given))

    def stray_end_note(self, marker: str, offset: int) -> str:
        from ._marked_stage import stray_end_removed

        return stray_end_removed(marker, offset)

    def unclosed_note(self) -> str:
        from ._marked_stage import reasoning_unclosed

        return reasoning_unclosed(self.close)
