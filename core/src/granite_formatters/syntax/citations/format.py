"""What a citation syntax declares (:class:`CitationFormat`) and what its citation
builder receives once per parse (:class:`CitationInput`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import attrs

if TYPE_CHECKING:
    from ._citation_lines import CitationEntry
    from ._citation_reader import CitationReader
    from ._documents import DocumentIndex
    from ._linepatterns import PatternSet
    from ._sections import SectionBlock
    from ._sentences import SentenceSplitter
    from ._spans import Span
    from ._stages import TextSink
    from ._tags import TagEvent, TagGrammar
    from .types import Citation, Granite3ChatCompletion

__all__ = ["CitationFormat", "CitationInput"]


@attrs.frozen
class CitationInput:
    """What a citation format's ``build_citations`` receives, once per parse.

    ``events`` are the inline tags in answer order (positions index ``content``),
    ``entries`` the lines of the citations sections, ``blocks`` the sections read,
    ``documents`` the request's documents; notes are appended to ``notes``.
    ``sentences()`` splits ``content`` into sentences (once per parse, cached).
    """

    events: list[TagEvent]
    entries: list[CitationEntry]
    content: str
    documents: DocumentIndex
    blocks: list[SectionBlock]
    notes: list[str]
    sentence_splitter: SentenceSplitter
    _sentences: list[Span] = attrs.field(factory=list, alias="_sentences")

    def sentences(self) -> list[Span]:
        """The sentences of ``content`` (split once per parse)."""
        if not self._sentences and self.content:
            self._sentences.extend(self.sentence_splitter(self.content))
        return self._sentences


@attrs.frozen
class CitationFormat:
    """A citation syntax: inline tags, the sections' headers and how to read them.

    ``read_section(body, notes)`` reads the body of a citations section into
    :class:`CitationEntry` items; ``build_citations(CitationInput)`` matches the tags
    with the entries. ``section_open``/``section_close`` are the special tokens around
    a section (3.3), "" when sections are only headers at the start of a line (3.2).
    ``documents_by_position``: documents are named by position ("Document 0"), not by
    ``doc_id``.
    """

    name: str
    tag_grammar: TagGrammar
    section_patterns: PatternSet
    read_section: Callable[[str, list[str]], list[CitationEntry]]
    build_citations: Callable[[CitationInput], list[Citation]]
    section_open: str = ""
    section_close: str = ""
    documents_by_position: bool = True

    def reader(
        self, content: TextSink, notes: list[str], request: Granite3ChatCompletion | None
    ) -> CitationReader | None:
        """The citation stages of one parse for ``request`` (``None`` when it reads no
        citations: a request without documents or the citation controls): the answer
        text written to it goes on to ``content`` with the tags removed."""
        from ._citation_reader import CitationReader, reads_citations

        if not reads_citations(request):
            return None
        return CitationReader(
            self,
            content,
            notes,
            documents=request.documents if request is not None else None,
            no_request=request is None,
        )
