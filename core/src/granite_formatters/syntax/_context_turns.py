"""Turns that carry the request's tools and documents (Granite 3.x).

Granite 3.x templates print the tools and the documents as turns of their own after
the system turn, not inside it: the tools as one turn of the tools list's indented JSON
(:class:`ToolsTurn`), the documents as one ``documents`` turn (3.2,
:class:`DocumentsTurn`) or one turn per document named by its id (3.3,
:class:`DocumentTurnPerDocument`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import attrs

if TYPE_CHECKING:
    from ._protocols import TurnSyntax

__all__ = ["DocumentTurnPerDocument", "DocumentsTurn", "ToolsTurn"]


@attrs.frozen
class ToolsTurn:
    """One turn of role :attr:`role` holding the tools list (the caller's list as it is)
    as JSON indented by :attr:`indent` spaces."""

    role: str
    indent: int = 4


def _heading(index: int) -> str:
    return f"\n\nDocument {index}\n" if index else "Document 0\n"


_KEPT = 16
_HEADINGS = tuple(_heading(index) for index in range(_KEPT))


@attrs.frozen
class DocumentsTurn:
    """One turn of role :attr:`role`: ``Document <i>\\n<text>`` per document, a blank
    line apart (3.2). Ids and titles are not printed."""

    role: str = "documents"

    @property
    def reads_ids(self) -> bool:
        """Whether the documents' ids are printed (and so required)."""
        return False

    def write(self, turns: TurnSyntax, texts: Sequence[str], ids: Sequence[str]) -> str:
        """The turn (``ids`` is not read)."""
        return "".join(self.parts(turns, texts, ids))

    def parts(self, turns: TurnSyntax, texts: Sequence[str], ids: Sequence[str]) -> list[str]:
        """The pieces :meth:`write` joins."""
        del ids
        parts = [turns.header(self.role)]
        for index, text in enumerate(texts):
            parts += (_HEADINGS[index] if index < _KEPT else _heading(index), text)
        parts.append(turns.end)
        return parts

    def heading(self, index: int) -> str:
        """What the turn puts before document ``index``'s text."""
        return _HEADINGS[index] if index < _KEPT else _heading(index)


@attrs.frozen
class DocumentTurnPerDocument:
    """One turn per document, of role :attr:`role_prefix` + its id +
    :attr:`role_suffix`, holding ``"\\n"`` + its text (3.3). Every document needs an id
    (the template prints a missing one as ``""``, a null one as ``"None"``)."""

    role_prefix: str = 'document {"document_id": "'
    role_suffix: str = '"}'

    @property
    def reads_ids(self) -> bool:
        """Whether the documents' ids are printed (and so required)."""
        return True

    def write(self, turns: TurnSyntax, texts: Sequence[str], ids: Sequence[str]) -> str:
        """The turns, one per (id, text)."""
        return "".join(self.parts(turns, texts, ids))

    def parts(self, turns: TurnSyntax, texts: Sequence[str], ids: Sequence[str]) -> list[str]:
        """The pieces :meth:`write` joins."""
        before, after, end = self.frame(turns)
        parts: list[str] = []
        for doc_id, text in zip(ids, texts, strict=True):
            parts += (before, doc_id, after, text, end)
        return parts

    def frame(self, turns: TurnSyntax) -> tuple[str, str, str]:
        """What each document's turn puts before its id, between its id and its text, and
        after its text."""
        # (the header of role prefix + id + suffix, split around the id)
        marker = "\0"
        header = turns.header(self.role_prefix + marker + self.role_suffix)
        before, _, after = header.partition(marker)
        return before, after + "\n", turns.end
