"""System-turn blocks: a prefix, one compact JSON line per item, a suffix.

Granite 4.0/4.1 list the request's tools and documents this way in the system turn;
the wording around the lines is release data (each release declares its blocks).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs

__all__ = ["SystemBlock"]


@attrs.frozen
class SystemBlock:
    """A block of the system turn: ``prefix``, then ``"\\n"`` + one JSON line per item,
    then ``suffix``.

    ``item``, when given, maps each caller item to the value written (``None`` leaves
    the item out); the block is printed whenever the caller's list is non-empty.
    """

    prefix: str
    suffix: str
    item: Callable[[Any], Any] | None = None

    def write(self, lines: str) -> str:
        """The block around ``lines`` (the items' JSON lines, each after a newline)."""
        return self.prefix + lines + self.suffix
