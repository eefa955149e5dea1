"""Test support: the constants the release tests need that differ between releases.

Keyed by release label (``"3.2"``); the plugin objects are imported only when asked for,
so a module that uses this table imports without every plugin installed.
"""

from __future__ import annotations

import importlib
from typing import Any

#: Each release's :class:`~granite_formatters.Release` declaration, as ``(module, name)``.
DECLARATIONS = {
    "3.2": ("granite_formatters_granite32.releases", "GRANITE32"),
    "3.3": ("granite_formatters_granite33.releases", "GRANITE33"),
    "4.0": ("granite_formatters_granite4.releases", "GRANITE40"),
    "4.1": ("granite_formatters_granite4.releases", "GRANITE41"),
}


def release_declaration(version: str) -> Any:
    """The :class:`~granite_formatters.Release` of release ``version`` (imports its plugin)."""
    module, name = DECLARATIONS[version]
    return getattr(importlib.import_module(module), name)


#: A model answer citing document ``"1"`` ("Paris is the capital of France.") in the
#: release's citation format.
CITED_ANSWER = {
    "3.2": 'The capital of France is Paris.<co>1</co>\n\n# Citations:\n<co>1</co> Document 0: "Paris is the capital of France."',
    "3.3": 'The capital of France is Paris.<|start_of_cite|>{"document_id": "1"}<|end_of_cite|>',
}


#: The Granite 4 model ids each release must register, as the plugin's table should say.
GRANITE4_MODELS: dict[str, list[str]] = {
    "4.0": [
        "granite-4.0-h-small",
        "granite-4.0-h-tiny",
        "granite-4.0-h-micro",
        "granite-4.0-micro",
        "granite-4.0-h-1b",
        "granite-4.0-h-350m",
        "granite-4.0-1b",
        "granite-4.0-350m",
    ],
    "4.1": ["granite-4.1-3b", "granite-4.1-8b", "granite-4.1-30b"],
}
