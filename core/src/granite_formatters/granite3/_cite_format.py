"""The bundled citation syntax :data:`CITE_TOKEN_CITATIONS` (Granite 3.3: cite tokens and citation
plugin blocks), under its documented name.

It is declared in :mod:`granite_formatters.syntax._citations.cite_format`.
"""

from __future__ import annotations

from ..syntax._citations.cite_format import (
    CITE_GRAMMAR,
    CITE_SECTION_PATTERNS,
    CITE_TOKEN_CITATIONS,
    END_OF_CITE,
    END_OF_PLUGIN,
    START_OF_CITE,
    START_OF_PLUGIN,
    TOKENS_SKIPPED_NOTE,
)

__all__ = [
    "CITE_GRAMMAR",
    "CITE_SECTION_PATTERNS",
    "CITE_TOKEN_CITATIONS",
    "END_OF_CITE",
    "END_OF_PLUGIN",
    "START_OF_CITE",
    "START_OF_PLUGIN",
    "TOKENS_SKIPPED_NOTE",
]
