"""Shared code of the Granite 3.x releases: request/response types, the citation formats
and the wording their declarations compose.

The package root holds what a user or a Granite 3 plugin needs: the citation formats
(data a release declares), the request and message types and the special tokens. The
public modules hold the rest, each named for what it holds: :mod:`.prompt_format` (the
system prompts' wording), :mod:`.tokens`, :mod:`.dates`, :mod:`.citations` (what a new
citation format is built from), :mod:`.cite_format` and :mod:`.co_format` (the two
bundled citation formats). The citation syntaxes themselves, with their reader stage
(the core's one parser runs it), are in :mod:`granite_formatters.syntax._citations`.

The tokens are imported with this package; the request and message types (pydantic),
:func:`sanitize` and the citation formats are imported on first use of one of their
names, so that a process that only formats plain-dict prompts never loads them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_getattr
from ._tokens import (
    END_OF_ROLE,
    END_OF_TEXT,
    GRANITE3_SPECIAL_TOKENS,
    START_OF_ROLE,
    TOOL_CALL,
)

if TYPE_CHECKING:
    from ..syntax._citations.format import CitationFormat
    from ._cite_format import CITE_TOKEN_CITATIONS
    from ._co_format import CO_CITATIONS
    from ._sanitize import sanitize
    from ._types import (
        Citation,
        Granite3AssistantMessage,
        Granite3ChatCompletion,
        Granite3Controls,
        Granite3Kwargs,
        Hallucination,
    )

# Types and output-side names, imported from their modules on first access.
_LAZY = {
    "sanitize": "_sanitize",
    "Citation": "_types",
    "Granite3AssistantMessage": "_types",
    "Granite3ChatCompletion": "_types",
    "Granite3Controls": "_types",
    "Granite3Kwargs": "_types",
    "Hallucination": "_types",
    "CITE_TOKEN_CITATIONS": "_cite_format",
    "CO_CITATIONS": "_co_format",
    "CitationFormat": "_citations",
}


__getattr__ = lazy_getattr(__name__, _LAZY, globals())


__all__ = [
    "CITE_TOKEN_CITATIONS",
    "CO_CITATIONS",
    "END_OF_ROLE",
    "END_OF_TEXT",
    "GRANITE3_SPECIAL_TOKENS",
    "START_OF_ROLE",
    "TOOL_CALL",
    "Citation",
    "CitationFormat",
    "Granite3AssistantMessage",
    "Granite3ChatCompletion",
    "Granite3Controls",
    "Granite3Kwargs",
    "Hallucination",
    "sanitize",
]
