"""What a citation syntax's citation builder receives once per parse
(:class:`CitationInput`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

if TYPE_CHECKING:
    from .documents import DocumentIndex
    from .lines import CitationEntry
    from .sections import SectionBlock
    from .sentences import SentenceSplitter
    from .spans import Span
    from .tag_grammar import TagEvent

__all__ = ["CitationInput"]


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
