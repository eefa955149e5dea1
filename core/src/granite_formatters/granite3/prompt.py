"""Former home of the Granite 3 prompt building blocks, kept so that old imports work.

The names now live in modules named for what they hold: the special tokens in
:mod:`granite_formatters.granite3.tokens`, the date in
:mod:`granite_formatters.granite3.dates`, the JSON writer in
:mod:`granite_formatters.jsonwriter`, the special-token scanner in
:mod:`granite_formatters.special_tokens`; :func:`~granite_formatters.granite3.sanitize`
and the generation prompt are part of the input processor. Import from those; this
module will be removed.
"""

from __future__ import annotations

from ..jsonwriter import MAX_JSON_NESTING, JSONNestingError, tojson
from ..special_tokens import (
    SpecialTokenPolicy,
    SpecialTokens,
    find_special_token_in_json,
    remove_special_tokens_in_json,
)
from ._sanitize import SANITIZE_PARTS, sanitize
from ._turns import generation_prompt
from .dates import current_date, format_date
from .tokens import END_OF_ROLE, END_OF_TEXT, GRANITE3_SPECIAL_TOKENS, START_OF_ROLE, TOOL_CALL

__all__ = [
    "END_OF_ROLE",
    "END_OF_TEXT",
    "GRANITE3_SPECIAL_TOKENS",
    "MAX_JSON_NESTING",
    "SANITIZE_PARTS",
    "START_OF_ROLE",
    "TOOL_CALL",
    "JSONNestingError",
    "SpecialTokenPolicy",
    "SpecialTokens",
    "current_date",
    "find_special_token_in_json",
    "format_date",
    "generation_prompt",
    "remove_special_tokens_in_json",
    "sanitize",
    "tojson",
]
