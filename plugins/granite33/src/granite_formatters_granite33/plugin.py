"""The hook of the Granite 3.3 plugin.

This module is what the ``granite_formatters`` entry point loads: it only registers
model names with the release declared in :mod:`.releases` (named by a string, imported
the first time a Granite 3.3 model is used); the core's engine renders and parses it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from granite_formatters import hookimpl

from ._demo import DEMO

if TYPE_CHECKING:
    from granite_formatters import Register

__all__ = ["register_formatters"]

#: The release declaration, imported when a Granite 3.3 model is first used.
_RELEASE = "granite_formatters_granite33.releases:GRANITE33"


@hookimpl
def register_formatters(register: Register) -> None:
    """Register Granite 3.3 instruct 2b and 8b."""
    for size in ("2b", "8b"):
        register(
            f"granite-3.3-{size}-instruct",
            release=_RELEASE,
            aliases=[
                f"ibm-granite/granite-3.3-{size}-instruct",
                f"granite3.3:{size}",
                f"ibm/granite-3-3-{size}-instruct",
            ]
            + (["granite3.3", "granite3.3:latest"] if size == "8b" else []),
            # Matched against the normalised name, which has lost its quantisation and
            # format tags (Q4_K_M, GGUF, 4bit, f16...): what is left is a derivative's
            # word. Only the derivatives known to keep the template (huihui-ai's
            # abliterated fine-tunes) resolve; "-instruct-embedding" and the like do not.
            patterns=[f"granite-3.3-{size}-instruct-abliterated"],
            description=f"IBM Granite 3.3 {size} instruct",
            demo=DEMO if size == "8b" else None,
        )
