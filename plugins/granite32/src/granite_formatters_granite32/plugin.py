"""The hook of the Granite 3.2 plugin.

This module is what the ``granite_formatters`` entry point loads: it registers model
names (with the demo of :mod:`.demo`) and the hint for Granite 3.0 and 3.1 names. The
models are registered with the release declared in :mod:`.releases` (named by a string,
imported the first time a Granite 3.2 model is used); the core's engine renders and
parses it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from granite_formatters import hookimpl

from ._demo import DEMO

if TYPE_CHECKING:
    from granite_formatters import Register
    from granite_formatters.hookspecs import RegisterHint

__all__ = ["register_formatters"]

#: The release declaration, imported when a Granite 3.2 model is first used.
_RELEASE = "granite_formatters_granite32.releases:GRANITE32"


@hookimpl
def register_formatters(register: Register, hint: RegisterHint) -> None:
    """Register Granite 3.2 instruct 2b and 8b, and the 8b preview; point Granite 3.0
    and 3.1 names to the nearest formatter, the example plugin's."""
    for size in ("2b", "8b"):
        register(
            f"granite-3.2-{size}-instruct",
            release=_RELEASE,
            aliases=[
                f"ibm-granite/granite-3.2-{size}-instruct",
                f"granite3.2:{size}",
                f"ibm/granite-3-2-{size}-instruct",
            ]
            + (["granite3.2", "granite3.2:latest"] if size == "8b" else []),
            # Matched against the normalised name, which has lost its quantisation and
            # format tags (Q4_K_M, GGUF, 4bit, f16...): what is left is a derivative's
            # word. Only the derivatives known to keep the template (huihui-ai's
            # abliterated fine-tunes) resolve; "-instruct-embedding" and the like do not.
            patterns=[f"granite-3.2-{size}-instruct-abliterated"],
            description=f"IBM Granite 3.2 {size} instruct",
            demo=DEMO if size == "8b" else None,
        )
    register(
        "granite-3.2-8b-instruct-preview",
        release=_RELEASE,
        aliases=[
            "ibm-granite/granite-3.2-8b-instruct-preview",
            "granite-8b-instruct-preview-4k",
            "ibm-granite/granite-8b-instruct-preview-4k",
        ],
        patterns=["granite-3.2-8b-instruct-preview-abliterated"],
        description="IBM Granite 3.2 8b instruct preview",
    )
    where = (
        "provided by the example plugin in examples/granite-formatters-granite31 of the "
        "granite-formatters repository; from a clone, install it with "
        "`python3 -m pip install ./examples/granite-formatters-granite31`."
    )
    hint(["granite-3.1", "granite-3.1-*"], f"Granite 3.1 is {where}")
    hint(
        ["granite-3.0", "granite-3.0-*"],
        f"No plugin formats Granite 3.0; the nearest, Granite 3.1, is {where}",
    )
