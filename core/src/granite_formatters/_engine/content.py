"""The parser's output: the content, trimmed as a whole (its leading and trailing Unicode
whitespace removed, as :meth:`str.strip` removes it, the trailing blanks held back until
more text follows), and the deltas of a chunk.

:class:`ContentOutput` is an object the parser (``parse.py``) holds: the stages write
content and deltas of other kinds to it, and the parser takes each chunk's deltas.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._streaming import Delta, content_delta

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["ContentOutput", "Trimmed"]


class ContentOutput:
    """The parser's content and deltas (see the module docstring)."""

    __slots__ = ("_out", "_out_text", "lead", "pieces", "spaces", "started")

    def __init__(self) -> None:
        #: The content passed on, and its trailing whitespace held back (the same lists
        #: for the parser's life: its lanes add a chunk's content to them directly, as
        #: :meth:`trim` would once the content has started and the deltas were taken).
        self.pieces: list[str] = []
        self.spaces: list[str] = []
        self._out: list[Delta] = []  # the deltas of the chunk fed so far
        self._out_text: list[str] = []  # content of the chunk fed, not yet in a delta
        #: The content has started (its leading whitespace is behind).
        self.started = False
        #: The characters stripped from the start of the content.
        self.lead = 0

    def trim(self, text: str) -> None:
        """Content, with the whole content's leading and trailing whitespace removed."""
        if not text:
            return
        if not self.started:
            stripped = text.lstrip()
            self.lead += len(text) - len(stripped)
            text = stripped
            if not text:
                return
            self.started = True
        stripped = text.rstrip()
        spaces = self.spaces
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
        self.pieces.append(body)
        self._out_text.append(body)

    def put(self, delta: Delta) -> None:
        """A delta of another kind (reasoning, tool calls): the content so far first."""
        if self._out_text:
            self._out.append(content_delta("".join(self._out_text)))
            self._out_text = []
        self._out.append(delta)

    def deltas(self) -> list[Delta]:
        """The deltas of the chunk fed (taken)."""
        if self._out:
            return self.flush()
        # Text only (the usual streamed chunk): at most one delta, built directly.
        out_text = self._out_text
        if not out_text:
            return []
        self._out_text = []
        return [content_delta(out_text[0] if len(out_text) == 1 else "".join(out_text))]

    def drop(self) -> None:
        """A batch parse: no deltas are kept."""
        self._out_text.clear()

    def flush(self) -> list[Delta]:
        """Every delta not yet taken (the content so far as one, last)."""
        out, self._out = self._out, []
        if self._out_text:
            out.append(content_delta("".join(self._out_text)))
            self._out_text = []
        return out

    @property
    def text(self) -> str:
        """The content so far."""
        return "".join(self.pieces)


class Trimmed:
    """The end of the citation stages: the parser's trimmed content."""

    __slots__ = ("end", "write")

    def __init__(self, content: ContentOutput) -> None:
        self.write: Callable[[str], None] = content.trim
        self.end: Callable[[], None] = _nothing


def _nothing() -> None:
    pass
