"""The hook of the Granite 4.0 and 4.1 plugin.

This module is what the ``granite_formatters`` entry point loads: it registers the
model names of each release declared in :mod:`.releases` (named as
``"module:attribute"`` strings, imported the first time a model of the release is
used); the core's engine renders and parses them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from granite_formatters import hookimpl

from ._demo import DEMO

if TYPE_CHECKING:
    from granite_formatters import Register

__all__ = ["GRANITE40_MODELS", "GRANITE41_MODELS", "register_formatters"]

#: The release declarations, imported when a model of the release is first used.
_GRANITE40 = "granite_formatters_granite4.releases:GRANITE40"
_GRANITE41 = "granite_formatters_granite4.releases:GRANITE41"

#: Granite 4.0 model ids -> (description, extra aliases: Ollama tags, watsonx ids).
GRANITE40_MODELS: dict[str, tuple[str, tuple[str, ...]]] = {
    "granite-4.0-h-small": (
        "IBM Granite 4.0 H Small (hybrid Mamba/transformer MoE, 32B)",
        ("granite4:small-h", "ibm/granite-4-h-small"),
    ),
    "granite-4.0-h-tiny": (
        "IBM Granite 4.0 H Tiny (hybrid MoE, 7B)",
        ("granite4:tiny-h", "ibm/granite-4-h-tiny"),
    ),
    "granite-4.0-h-micro": (
        "IBM Granite 4.0 H Micro (hybrid, 3B)",
        ("granite4:micro-h", "granite4:3b-h"),
    ),
    "granite-4.0-micro": (
        "IBM Granite 4.0 Micro (dense, 3B)",
        ("granite4", "granite4:latest", "granite4:micro", "granite4:3b"),
    ),
    "granite-4.0-h-1b": ("IBM Granite 4.0 H 1B (hybrid nano)", ("granite4:1b-h",)),
    "granite-4.0-h-350m": ("IBM Granite 4.0 H 350M (hybrid nano)", ("granite4:350m-h",)),
    "granite-4.0-1b": ("IBM Granite 4.0 1B (dense nano)", ("granite4:1b",)),
    "granite-4.0-350m": ("IBM Granite 4.0 350M (dense nano)", ("granite4:350m",)),
}

#: Granite 4.1 model ids -> (description, extra aliases).
GRANITE41_MODELS: dict[str, tuple[str, tuple[str, ...]]] = {
    f"granite-4.1-{size}": (f"IBM Granite 4.1 {size.upper()}", (f"granite4.1:{size}",))
    for size in ("3b", "8b", "30b")
}


@hookimpl
def register_formatters(register: Register) -> None:
    """Register the Granite 4.0 and 4.1 chat models.

    Every other spelling (any case, ``ibm-granite/`` or another organisation, GGUF
    files and quantised Ollama tags, MLX conversions, LiteLLM provider prefixes such as
    ``ollama/`` or ``watsonx/``, the ``ibm/`` Ollama namespace) reaches these through
    the core's name normalisation. Base models (``-base``) are not registered.
    """
    for models, release in ((GRANITE40_MODELS, _GRANITE40), (GRANITE41_MODELS, _GRANITE41)):
        for index, (model_id, (description, extra)) in enumerate(models.items()):
            register(
                model_id,
                release=release,
                aliases=[f"ibm-granite/{model_id}", *extra],
                description=description,
                # (Declared once per release; its other sizes show the same.)
                demo=DEMO if index == 0 else None,
            )
