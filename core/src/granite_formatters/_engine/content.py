"""The parser's output: the content, trimmed as a whole (its leading and trailing Unicode
whitespace removed, as :meth:`str.strip` removes it, the trailing blanks held back until
more text follows), and the deltas of a chunk.

:class:`ContentOutput` is a part of the parser (``parse.py``): it keeps its state on the
parser, whose fast lanes read it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from .._streaming import Delta, content_delta

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["ContentOutput", "Trimmed"]


class ContentOutput:
    """The parser's content and deltas (see the module docstring)."""

    #: The parser's slots that hold this part's state.
    FIELDS: ClassVar[tuple[str, ...]] = (
        "_content",
        "_lead",
        "_out",
        "_out_text",
        "_spaces",
        "_started",
    )

    _content: list[str]  # the content passed on
    _started: bool  # the content has started (its leading whitespace is behind)
    _lead: int  # characters stripped from the start of the content
    _spaces: list[str]  # trailing whitespace, held back
    _out: list[Delta]  # the deltas of the chunk fed so far
    _out_text: list[str]  # content of the chunk fed, not yet in a delta

    def _content_setup(self) -> None:
        self._content = []
        self._started = False
        self._lead = 0
        self._spaces = []
        self._out = []
        self._out_text = []

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

    def _flush_text(self) -> None:
        """The content not yet in a delta, as one (before a delta of another kind)."""
        if self._out_text:
            self._out.append(content_delta("".join(self._out_text)))
            self._out_text = []

    def _flush(self) -> list[Delta]:
        self._flush_text()
        out, self._out = self._out, []
        return out


class Trimmed:
    """The end of the citation stages: the parser's trimmed content."""

    __slots__ = ("end", "write")

    def __init__(self, parser: ContentOutput) -> None:
        self.write: Callable[[str], None] = parser._trim
        self.end: Callable[[], None] = _nothing


def _nothing() -> None:
    pass
