"""Normalisation of the model names people really use.

PLACEHOLDER: replaced by the full implementation.
"""

from __future__ import annotations

__all__ = ["normalize_model_name"]


def normalize_model_name(name: str) -> str:
    """Return the normalised form of ``name`` used for lookups."""
    return name.strip().lower()
