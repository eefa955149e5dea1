"""The inline citation tag vocabulary: what a :class:`TagGrammar` recognises and what
the tag remover records (:class:`TagEvent`)."""

from __future__ import annotations

from typing import NamedTuple, Protocol

__all__ = ["ANCHOR", "CLOSE", "NEED_MORE", "OPEN", "NeedMore", "TagEvent", "TagGrammar", "TagMatch"]

#: Tag kinds: a point reference, the start and the end of a wrapped cited text.
ANCHOR, OPEN, CLOSE = "anchor", "open", "close"


class TagMatch(NamedTuple):
    """A tag recognised by a :class:`TagGrammar`."""

    length: int
    kind: str
    ref: str | None = None
    #: Free-form flags of the grammar, e.g. ``"remnant"`` for a tag whose special
    #: tokens were stripped by the server.
    flag: str = ""


class NeedMore:
    """The type of :data:`NEED_MORE`: the text ends before a grammar can decide."""

    def __repr__(self) -> str:
        return "NEED_MORE"


NEED_MORE = NeedMore()


class TagGrammar(Protocol):
    """How a release writes its inline citation tags."""

    #: Literal strings that may begin a tag.
    markers: tuple[str, ...]

    def match(self, text: str, pos: int, final: bool) -> TagMatch | NeedMore | None:
        """Recognise a tag starting at ``text[pos]`` (which begins with a marker).

        Return the match, ``None`` if this is not a tag (the marker is then kept as
        text), or :data:`NEED_MORE` if ``text`` ends too early to tell (only when
        ``final`` is false). The decision must not depend on how much text follows
        beyond what the grammar looks at, so that streaming and batch parsing agree.
        """


class TagEvent(NamedTuple):
    """A removed tag: its kind, reference, flag and position in the cleaned text."""

    kind: str
    ref: str | None
    position: int
    flag: str = ""
