"""A release's special-token set, as a plugin declares it (see ``docs/security.md``)."""

from __future__ import annotations

from ._special_tokens import SpecialTokens

__all__ = ["SpecialTokens"]
