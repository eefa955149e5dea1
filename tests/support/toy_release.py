"""A toy release for tests of one syntax: ChatML turns and whatever else a test declares."""

from __future__ import annotations

from typing import Any

from granite_formatters import Release
from granite_formatters._special_tokens import SpecialTokens
from granite_formatters.syntax import CHATML


def toy_release(name: str = "Toy", **declared: Any) -> Release:
    """A release named ``name`` with ChatML turns, its two tokens and stop string, and
    the ``declared`` fields (syntaxes, markers, options) of :class:`Release`."""
    return Release(
        name=name,
        family="Toy",
        turns=CHATML,
        special_tokens=SpecialTokens(("<|im_start|>", "<|im_end|>")),
        stop_strings=("<|im_end|>",),
        **declared,
    )
