"""What a new Granite 3 citation format is built from.

The two bundled formats, :data:`CO_CITATIONS` (Granite 3.1/3.2, ``<co>`` tags and a
``# Citations:`` section) and :data:`CITE_TOKEN_CITATIONS` (Granite 3.3, cite tokens and
a citation plugin block), are :class:`CitationFormat` objects built from these pieces;
a plugin whose release cites another way declares its own the same way, and never
imports another plugin. See docs/output-formats.md.

- the format and its input: :class:`CitationFormat`, :class:`CitationInput`;
- citation lines and sections: :class:`CitationEntry`, :class:`DocumentIndex`,
  :class:`SectionBlock`, :func:`parse_citation_lines`, :func:`make_citation`;
- inline tags: :class:`TagGrammar`, :class:`TagMatch`, :class:`TagEvent`;
- line patterns: :class:`PatternSet`, :class:`BoundedPattern`, :class:`Lit`,
  :class:`Rep`;
- sentences and spans: :func:`split_sentences`, :class:`SentenceSplitter`,
  :func:`anchor_sentences`.
"""

from __future__ import annotations

from ._citetags import TagEvent, TagGrammar, TagMatch
from ._linepatterns import BoundedPattern, Lit, PatternSet, Rep
from ._sentences import SentenceSplitter, split_sentences
from ._spans import anchor_sentences
from .cite_format import CITE_TOKEN_CITATIONS
from .co_format import CO_CITATIONS
from .output import (
    CitationEntry,
    CitationFormat,
    CitationInput,
    DocumentIndex,
    SectionBlock,
    make_citation,
    parse_citation_lines,
)

__all__ = [
    "CITE_TOKEN_CITATIONS",
    "CO_CITATIONS",
    "BoundedPattern",
    "CitationEntry",
    "CitationFormat",
    "CitationInput",
    "DocumentIndex",
    "Lit",
    "PatternSet",
    "Rep",
    "SectionBlock",
    "SentenceSplitter",
    "TagEvent",
    "TagGrammar",
    "TagMatch",
    "anchor_sentences",
    "make_citation",
    "parse_citation_lines",
    "split_sentences",
]
