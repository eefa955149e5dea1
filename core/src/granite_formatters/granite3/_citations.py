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

The pieces live in the citation syntax package, :mod:`granite_formatters.syntax._citations`,
one module each; this module gathers them under their documented names.
"""

from __future__ import annotations

from ..syntax._citations.citation_input import CitationInput
from ..syntax._citations.cite_format import CITE_TOKEN_CITATIONS
from ..syntax._citations.co_format import CO_CITATIONS
from ..syntax._citations.documents import (
    DocumentIndex,
    citation_fields,
    citations_from_fields,
    make_citation,
)
from ..syntax._citations.format import CitationFormat
from ..syntax._citations.hallucinations import (
    add_hallucination_response_spans,
    parse_hallucinations_text,
)
from ..syntax._citations.line_patterns import BoundedPattern, Lit, PatternSet, Rep
from ..syntax._citations.lines import CitationEntry, parse_citation_lines
from ..syntax._citations.sections import SectionBlock, split_section_blocks
from ..syntax._citations.sentences import SentenceSplitter, split_sentences
from ..syntax._citations.spans import anchor_sentences
from ..syntax._citations.tag_grammar import (
    ANCHOR,
    CLOSE,
    NEED_MORE,
    OPEN,
    NeedMore,
    TagEvent,
    TagGrammar,
    TagMatch,
)

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
