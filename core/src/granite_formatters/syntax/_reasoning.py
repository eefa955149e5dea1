"""The ``<think>`` reasoning syntax whose block the prompt may already have opened.

Granite 4.2 ends its generation prompt with ``<think>\\n`` (thinking on) or
``<think></think>`` (thinking off), so its output begins inside the reasoning; past
reasoning is written back into assistant history as ``<think>\\nREASONING\\n</think>\\n``,
cut from turns before the last user message. The specification is in
``docs/granite42.md``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import attrs

from .._errors import quote

if TYPE_CHECKING:
    from ._protocols import ReasoningSyntax

__all__ = [
    "OPENED_THINK",
    "OpenedReasoningReader",
    "OpenedThink",
    "effort_option_error",
    "think_option_error",
]

_OPEN = "<think>"
_CLOSE = "</think>"
_EMPTY_THOUGHT = _OPEN + _CLOSE
_LOW_EFFORT_SUFFIX = "\n\n{reasoning effort: low}"


def think_option_error(value: Any) -> str | None:
    """Why a value of ``enable_thinking``, ``low_effort`` or ``truncate_history_thinking``
    is refused (the check of those release options)."""
    if value is None or isinstance(value, bool):
        return None
    return f"must be true or false, not {quote(value)}"


def effort_option_error(value: Any) -> str | None:
    """Why a value of ``reasoning_effort`` is refused (a string or null is accepted)."""
    if value is None or isinstance(value, str):
        return None
    return f"must be a string such as 'low' or 'high', not {quote(value)}"


def _low_effort(options: Mapping[str, Any]) -> bool:
    # A non-null reasoning_effort decides low effort (the template's mapping).
    effort = options.get("reasoning_effort")
    if effort is not None:
        return bool(effort == "low")
    return bool(options.get("low_effort", False))


def _body(content: str, reasoning: Any, truncated: bool, with_calls: bool) -> str:
    """An assistant history turn's text, between its header and its tool calls."""
    if isinstance(reasoning, str) and reasoning.strip():
        text = _OPEN + "\n" + reasoning + "\n" + _CLOSE + "\n" + content
    elif _OPEN not in content and _CLOSE not in content:
        text = _EMPTY_THOUGHT + content
    else:
        text = content
    if with_calls:
        if not text.strip():
            return _EMPTY_THOUGHT
        if not truncated:
            return text.strip() + "\n"
        if _CLOSE in text:
            text = text.rsplit(_CLOSE, 1)[1]
        elif _OPEN in text:
            text = text.split(_OPEN, 1)[0]
        return _EMPTY_THOUGHT + text.strip() + "\n"
    if truncated and _OPEN in text and _CLOSE in text:
        text = _EMPTY_THOUGHT + text.rsplit(_CLOSE, 1)[1]
    return text.strip()


@attrs.frozen
class OpenedThink:
    """A ``<think>`` block that the generation prompt opens (or closes empty when thinking
    is off). Implements :class:`~granite_formatters.syntax.ReasoningSyntax`.

    Options read: ``enable_thinking`` (default true), ``low_effort``,
    ``reasoning_effort`` (non-null: low effort is ``== "low"``),
    ``truncate_history_thinking`` (default true).
    """

    open: str = _OPEN
    close: str = _CLOSE
    after_close: str = "\n"

    def generation_prompt(self, options: Mapping[str, Any]) -> str:
        return _OPEN + "\n" if self.starts_inside(options) else _EMPTY_THOUGHT

    def last_user_suffix(self, options: Mapping[str, Any]) -> str:
        return _LOW_EFFORT_SUFFIX if _low_effort(options) else ""

    def history(
        self,
        content: str,
        reasoning: str | None,
        *,
        historical: bool,
        tool_calls: bool,
        options: Mapping[str, Any],
    ) -> str:
        """Past reasoning folded into the text as ``<think>\\n…\\n</think>\\n``, a
        ``<think></think>`` added where there is none, the reasoning of a historical
        turn cut (with ``truncate_history_thinking``); trimmed, and ending in a newline
        before tool calls."""
        truncated = historical and bool(options.get("truncate_history_thinking", True))
        return _body(content, reasoning, truncated, tool_calls)

    def starts_inside(self, options: Mapping[str, Any]) -> bool:
        return bool(options.get("enable_thinking", True))

    def removed_when_off(self, options: Mapping[str, Any]) -> str:
        return "" if self.starts_inside(options) else _EMPTY_THOUGHT

    def marked(self) -> None:
        """``None``: the reasoning starts only at the start of the output."""
        return None


#: Granite 4.2's reasoning.
OPENED_THINK = OpenedThink()


# The reader's states: the output may open reasoning (thinking off), the output starts
# inside it (a re-emitted open marker may come first), inside it, inside it past a
# tool-call marker that starts a line (undecided until the end marker or the end of the
# output), just after its end marker, done.
_LEAD, _OPENED, _INSIDE, _CALLED, _AFTER, _DONE = range(6)
_LINE_BLANKS = " \t"


def _line_start(text: str, at_start: bool) -> bool:
    """Whether the end of ``text`` is at the start of a line (only blanks since its last
    newline), ``at_start`` saying whether the text before it ended so."""
    newline = text.rfind("\n")
    if newline == -1:
        return at_start and not text.strip(_LINE_BLANKS)
    return not text[newline + 1 :].strip(_LINE_BLANKS)


def _partial_tail(text: str, markers: tuple[str, ...], firsts: str) -> int:
    """Length of the longest suffix of ``text`` that is a proper prefix of a marker
    (``firsts``: the markers' first characters)."""
    reach = max(map(len, markers)) - 1
    tail = text[len(text) - reach :] if len(text) > reach else text
    longest = 0
    for first in firsts:
        found = tail.find(first)
        while found != -1:
            piece = tail[found:]
            if any(marker.startswith(piece) for marker in markers):
                longest = max(longest, len(piece))
                break
            found = tail.find(first, found + 1)
    return longest


@lru_cache(maxsize=64)
def _searched(close: str, stopper: str) -> tuple[tuple[str, ...], str]:
    """The markers an :class:`OpenedReasoningReader` searches (its end marker and the
    stopper, if any) and their first characters (made once per release)."""
    markers = (close, stopper) if stopper else (close,)
    return markers, "".join(dict.fromkeys(marker[0] for marker in markers))


class OpenedReasoningReader:
    """The reading of reasoning that the prompt may have opened (a
    :class:`~granite_formatters.syntax.ReasoningSyntax` that is not ``marked()``), at the
    start of the output, a chunk at a time: the parser's first stage.

    - Thinking on (the prompt opened the block): an open marker that the model writes
      again at the start (after blanks) is markup, removed; the reasoning runs to the
      end marker, whose ``after_close`` characters are dropped.
    - Thinking off: an empty block at the start (``removed_when_off``) is removed; an
      open marker there opens reasoning; anything else is content.
    - ``stopper`` (the tool-call open marker; ``""`` for none) at the start of a line of
      reasoning that has no end marker after it ends the reasoning: the model went on to
      call a tool without closing its thought. When an end marker follows, the call was
      quoted (kept as reasoning, with a note); a stopper inside a line is read as quoted
      too (noted when the reasoning is never closed).

    Reasoning goes to ``emit`` as it is read; undecided text is held back (a partial
    marker, or everything from a line-start stopper until the end marker or the end of
    the output), so a stream gives the batch parse's result for every chunking.
    """

    __slots__ = (
        "_after",
        "_bol",
        "_call_at",
        "_close",
        "_emit",
        "_firsts",
        "_given",
        "_held",
        "_held_len",
        "_markers",
        "_notes",
        "_open",
        "_quoted_at",
        "_removed",
        "_state",
        "_stopper",
        "_tail",
        "at",
        "seen",
    )

    def __init__(
        self,
        syntax: ReasoningSyntax,
        options: Mapping[str, Any],
        opened: bool | None,
        stopper: str,
        emit: Callable[[str], None],
        notes: list[str],
    ) -> None:
        """(Positional: a parser builds one per output, and keywords cost a short
        parse measurably.)"""
        self._open, self._close, self._after = syntax.open, syntax.close, syntax.after_close
        self._removed = syntax.removed_when_off(options)
        if opened is None:
            opened = syntax.starts_inside(options)
        self._state = _OPENED if opened else _LEAD
        self._stopper = stopper
        self._markers, self._firsts = _searched(self._close, stopper)
        self._emit = emit
        self._notes = notes
        self._held: list[str] = []  # undecided text: the end of the output given so far
        self._held_len = 0
        self._tail = ""  # (the end of the held text, while _CALLED: a partial end marker)
        self._given = 0  # characters of the output given so far
        self._bol = True  # (the reasoning passed on so far ends at the start of a line)
        self._call_at = -1  # (the offset of the stopper that made the state _CALLED)
        self._quoted_at = -1  # (the offset of the first stopper inside a line)
        #: The offset in the output of the text returned as content (once done).
        self.at = 0
        #: Whether reasoning was opened (the reasoning is ``""`` at least).
        self.seen = False

    def take(self, text: str) -> str | None:
        """Read ``text``: ``None`` while the reasoning goes on, else what follows it
        (content, possibly ``""``). (The text worked on is always the end of the output
        given so far, so its offset is ``_given - len(text)``.)"""
        self._given += len(text)
        if self._state == _CALLED:
            rest = self._called(text)
            if rest is None:
                return None
            text = rest
        elif self._held:
            text = "".join(self._held) + text
            self._held.clear()
            self._held_len = 0
        while True:
            state = self._state
            if state == _INSIDE:
                rest = self._inside(text)
                if rest is None:
                    return None
                text = rest
            elif state == _AFTER:
                text = text.lstrip(self._after) if self._after else text
                if not text:
                    return None
                return self._done(text)
            else:  # _LEAD or _OPENED: what the output starts with (after blanks)
                rest = text.lstrip()
                removed, opened = self._removed, self._open
                if removed and rest.startswith(removed):
                    text, self._state = rest[len(removed) :], _AFTER
                elif not rest or removed.startswith(rest):
                    self._hold(rest)  # (undecided: it may become the removed block)
                    return None
                elif rest.startswith(opened):
                    text, self._state = rest[len(opened) :], _INSIDE
                    self.seen = True
                elif opened.startswith(rest):
                    self._hold(rest)
                    return None
                elif state == _OPENED:
                    text, self._state = rest, _INSIDE
                else:
                    return self._done(text)

    def _done(self, text: str) -> str:
        self._state = _DONE
        self.at = self._given - len(text)
        return text

    def _hold(self, text: str) -> None:
        if text:
            self._held.append(text)
            self._held_len += len(text)

    def _pass(self, text: str) -> None:
        """Reasoning read."""
        if text:
            self._bol = _line_start(text, self._bol)
            self._emit(text)

    def _inside(self, text: str) -> str | None:
        """Inside the reasoning: what follows its end marker (``None`` while it goes
        on)."""
        end = text.find(self._close)
        stopper = self._stopper
        if stopper:
            limit = len(text) if end == -1 else end
            seen, bol = 0, self._bol
            found = text.find(stopper, 0, limit)
            while found != -1:
                if _line_start(text[seen:found], bol):
                    self._pass(text[:found])
                    self._state = _CALLED
                    self._call_at = self._given - len(text) + found
                    self._tail = ""
                    return self._called(text[found:])
                if self._quoted_at == -1:
                    self._quoted_at = self._given - len(text) + found
                seen, bol = found + len(stopper), False
                found = text.find(stopper, seen, limit)
        if end == -1:
            keep = _partial_tail(text, self._markers, self._firsts)
            self._pass(text[: len(text) - keep])
            self._hold(text[len(text) - keep :])
            return None
        self._pass(text[:end])
        self._state = _AFTER
        return text[end + len(self._close) :]

    def _called(self, text: str) -> str | None:
        """Past a stopper at the start of a line (held): when the end marker comes, all
        of it was reasoning (a quoted call), and what follows the marker is returned."""
        close, tail = self._close, self._tail
        found = (tail + text).find(close)
        if found == -1:
            self._hold(text)
            self._tail = (tail + text)[1 - len(close) :] if len(close) > 1 else ""
            return None
        whole = "".join(self._held) + text
        end = self._held_len - len(tail) + found
        self._held.clear()
        self._held_len = 0
        self._notes.append(
            f"the {self._stopper} at offset {self._call_at} is inside the reasoning (a "
            f"{close} follows it); kept as reasoning"
        )
        self._pass(whole[:end])
        self._state = _AFTER
        return whole[end + len(close) :]

    def end(self) -> str:
        """The output ended: what is left for the content (the held text, when it turns
        out not to be reasoning), with notes on a reasoning left unclosed."""
        state, held = self._state, "".join(self._held)
        self._held.clear()
        self._held_len = 0
        if state in (_LEAD, _CALLED):
            if state == _CALLED:
                self._notes.append(
                    f"the reasoning has no end marker {self._close}; it ends at the "
                    f"{self._stopper} at offset {self._call_at}"
                )
            return self._done(held)
        if state in (_OPENED, _INSIDE):
            self._pass(held)
            self._notes.append(f"the reasoning has no end marker {self._close}; kept as reasoning")
            if self._quoted_at != -1:
                self._notes.append(
                    f"the {self._stopper} at offset {self._quoted_at} is inside a line of the "
                    "reasoning (read as quoted); kept as reasoning"
                )
        return self._done("")
