"""The ``<co>`` citation format of Granite 3.1 and 3.2 output.

The model marks a cited sentence with ``<co>N</co>`` after it and lists the citations
in a ``# Citations:`` section of ``<co>N</co> Document D: "quoted context"`` lines,
followed by an optional ``# Hallucinations:`` section of ``1. Risk low: sentence``
items. Documents are numbered by position (``Document 0`` is the request's first
document); a citation's ``doc_id`` is that document's own ``doc_id`` when it has one,
else its position as a string, and the message's ``documents`` carry the same id.

Headers are matched at the start of a line, tolerating case, ``##`` and spaces. A tag
refers to the sentence it ends (or sits in); a tag at the very start of the answer
refers to the first sentence. Each tag occurrence gives one citation, so a repeated
sentence gets the span of the copy that carries the tag. Listed citations that no tag
refers to are returned without a response span (and noted); tags that have no listed
citation are noted and skipped (their document is unknown).

:data:`CO_CITATIONS` declares all of this as a :class:`~.format.CitationFormat`; a
release declares it as its ``citations`` (``Release(citations=CO_CITATIONS)``).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from .format import CitationFormat
from .line_patterns import SPACES, BoundedPattern, Lit, PatternSet, Rep
from .tag_grammar import ANCHOR, NEED_MORE, NeedMore, TagMatch

if TYPE_CHECKING:
    from ...granite3._types import Citation
    from .citation_input import CitationInput
    from .lines import CitationEntry

__all__ = [
    "COTAG_GRAMMAR",
    "CO_CITATIONS",
    "CO_SECTION_PATTERNS",
]


def _header(kind: str, word: str) -> BoundedPattern:
    return BoundedPattern(
        kind, [SPACES, Rep("#", 1, 6), SPACES, Lit(word, icase=True), SPACES, Lit(":")]
    )


#: ``# Citations:`` and ``# Hallucinations:`` at the start of a line.
CO_SECTION_PATTERNS = PatternSet(
    [_header("citations", "Citations"), _header("hallucinations", "Hallucinations")]
)

_OPEN, _CLOSE = "<co>", "</co>"
_MAX_INNER = 32
_WINDOW = len(_OPEN) + _MAX_INNER + len(_CLOSE)
_WAITS = frozenset(">\n")


class _CoTags:
    """``<co>N</co>``: a point reference to citation N (any short text without ``<``)."""

    markers: tuple[str, ...] = (_OPEN,)

    def match(self, text: str, pos: int, final: bool) -> TagMatch | NeedMore | None:
        inner_start = pos + len(_OPEN)
        close = text.find(_CLOSE, inner_start, pos + _WINDOW)
        if close == -1:
            if "\n" in text[inner_start : pos + _WINDOW]:
                return None
            if not final and len(text) < pos + _WINDOW:
                return NEED_MORE
            return None
        inner = text[inner_start:close]
        if "<" in inner or "\n" in inner:
            return None
        return TagMatch(close + len(_CLOSE) - pos, ANCHOR, inner.strip())

    def waits(self, text: str, pos: int) -> tuple[frozenset[str], int] | None:
        """For a tag at ``pos`` that :meth:`match` left undecided: the characters that
        may decide it (the end of its ``</co>``, a line break) and the length below
        which ``text[pos:]`` stays undecided without one of them."""
        return _WAITS, _WINDOW


#: The ``<co>N</co>`` inline citation tag grammar (Granite 3.1 and 3.2).
COTAG_GRAMMAR = _CoTags()

_CITATION_LINE = re.compile(
    r"[ \t]*(?:\d{1,4}[.)][ \t]*)?<co>[ \t]*(?P<key>[^<\n]{1,32}?)[ \t]*</co>[ \t]*"
    r"(?:document[ \t]*)?(?P<document>[^:\n]{0,64}?)[ \t]*:[ \t]*(?P<context>.*)",
    re.IGNORECASE,
)


def _read_co_section(body: str, notes: list[str]) -> list[CitationEntry]:
    from .lines import parse_citation_lines

    return parse_citation_lines(body, (_CITATION_LINE,), notes)


def _build_co_citations(found: CitationInput) -> list[Citation]:
    # (the parse-side modules are imported by the first parse, not by a declaration)
    from .documents import citation_fields, citations_from_fields
    from .spans import ContextLocator, anchor_sentences

    notes, content, documents = found.notes, found.content, found.documents
    listed: dict[str, CitationEntry] = {}
    for entry in found.entries:
        if entry.key in listed:
            notes.append(f"citation {entry.key} is listed more than once; the first is used")
        else:
            listed.setdefault(entry.key, entry)
    anchors = [event for event in found.events if event.kind == ANCHOR]
    sentences = found.sentences() if anchors else []
    spans = anchor_sentences([event.position for event in anchors], sentences)
    locator = ContextLocator()
    citations: list[dict[str, Any]] = []
    tagged: set[str] = set()
    for event, span in zip(anchors, spans, strict=True):
        key = event.ref or ""
        hit = listed.get(key)
        if hit is None:
            notes.append(f"<co>{key}</co> in the answer has no line in the citations section")
            continue
        tagged.add(key)
        citations.append(
            citation_fields(key, hit, hit.document, span, content, documents, locator, notes)
        )
    for key, untagged in listed.items():
        if key not in tagged:
            notes.append(f"citation {key} is listed but not marked in the answer")
            citations.append(
                citation_fields(
                    key, untagged, untagged.document, None, content, documents, locator, notes
                )
            )
    return citations_from_fields(citations)


#: The ``<co>`` citation format of Granite 3.1 and 3.2, as data.
CO_CITATIONS = CitationFormat(
    name="co",
    tag_grammar=COTAG_GRAMMAR,
    section_patterns=CO_SECTION_PATTERNS,
    read_section=_read_co_section,
    build_citations=_build_co_citations,
    documents_by_position=True,
)
