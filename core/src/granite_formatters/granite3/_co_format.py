"""The bundled citation syntax :data:`CO_CITATIONS` (Granite 3.1/3.2: ``<co>`` tags and
a ``# Citations:`` section), under its documented name.

It is declared in :mod:`granite_formatters.syntax._citations.co_format`.
"""

from __future__ import annotations

from ..syntax._citations.co_format import (
    CO_CITATIONS,
    CO_SECTION_PATTERNS,
    COTAG_GRAMMAR,
)

__all__ = [
    "COTAG_GRAMMAR",
    "CO_CITATIONS",
    "CO_SECTION_PATTERNS",
]
