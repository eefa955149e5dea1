"""What a new Granite 3 citation format is built from.

The two bundled formats, :data:`CO_CITATIONS` (Granite 3.1/3.2, ``<co>`` tags and a
``# Citations:`` section) and :data:`CITE_TOKEN_CITATIONS` (Granite 3.3, cite tokens and
a citation plugin block), are :class:`CitationFormat` objects built from these pieces;
a plugin whose release cites another way declares its own the same way, and never
imports another plugin. See docs/output-formats.md.

- the format and its input: :class:`CitationFormat`, :class:`CitationInput`;
- citation lines and sections: :class:`CitationEntry`, :class:`SectionBlock`,
  :func:`parse_citation_lines`, :func:`split_section_blocks`;
- documents and citations: :class:`DocumentIndex`, :func:`make_citation`,
  :func:`citation_fields`, :func:`citations_from_fields`;
- hallucination lists: :func:`parse_hallucinations_text`,
  :func:`add_hallucination_response_spans`;
- inline tags: :class:`TagGrammar`, :class:`TagMatch` (of kind :data:`ANCHOR`,
  :data:`OPEN` or :data:`CLOSE`), :data:`NEED_MORE`, :class:`TagEvent`;
- line patterns: :class:`PatternSet`, :class:`BoundedPattern`, :class:`Lit`,
  :class:`Rep`;
- sentences and spans: :func:`split_sentences`, :class:`SentenceSplitter`,
  :func:`anchor_sentences`.
"""

from __future__ import annotations

from ._citation_format import CitationFormat, CitationInput
from ._citation_lines import CitationEntry, parse_citation_lines
from ._documents import DocumentIndex, citation_fields, citations_from_fields, make_citation
from ._hallucinations import add_hallucination_response_spans, parse_hallucinations_text
from ._linepatterns import BoundedPattern, Lit, PatternSet, Rep
from ._sections import SectionBlock, split_section_blocks
from ._sentences import SentenceSplitter, split_sentences
from ._spans import anchor_sentences
from ._tags import ANCHOR, CLOSE, NEED_MORE, OPEN, NeedMore, TagEvent, TagGrammar, TagMatch
from .cite_format import CITE_TOKEN_CITATIONS
from .co_format import CO_CITATIONS

__all__ = [
    "ANCHOR",
    "CITE_TOKEN_CITATIONS",
    "CLOSE",
    "CO_CITATIONS",
    "NEED_MORE",
    "OPEN",
    "BoundedPattern",
    "CitationEntry",
    "CitationFormat",
    "CitationInput",
    "DocumentIndex",
    "Lit",
    "NeedMore",
    "PatternSet",
    "Rep",
    "SectionBlock",
    "SentenceSplitter",
    "TagEvent",
    "TagGrammar",
    "TagMatch",
    "add_hallucination_response_spans",
    "anchor_sentences",
    "citation_fields",
    "citations_from_fields",
    "make_citation",
    "parse_citation_lines",
    "parse_hallucinations_text",
    "split_section_blocks",
    "split_sentences",
]
