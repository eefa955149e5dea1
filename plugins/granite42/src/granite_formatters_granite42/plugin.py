"""The hook of the Granite 4.2 plugin: model names and the release.

The entry point loads this module, which registers the Granite 4.2 model names with
the release declared in :mod:`.releases` (named as a ``"module:attribute"`` string,
imported the first time a Granite 4.2 model is used); the core renders and parses it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from granite_formatters import hookimpl

from ._demo import DEMO

if TYPE_CHECKING:
    from granite_formatters import Register

__all__ = ["GRANITE42_MODELS", "register_formatters"]

#: The release declaration, imported when a Granite 4.2 model is first used.
_RELEASE = "granite_formatters_granite42.releases:GRANITE42"

#: Granite 4.2 model ids -> (description, extra aliases: Ollama tags).
GRANITE42_MODELS: dict[str, tuple[str, tuple[str, ...]]] = {
    f"granite-4.2-{size}": (f"IBM Granite 4.2 {size.upper()} (reasoning)", (f"granite4.2:{size}",))
    for size in ("3b", "8b", "30b")
}


@hookimpl
def register_formatters(register: Register) -> None:
    """Register the Granite 4.2 models.

    Every other spelling (any case, without the organisation, GGUF repositories and
    files, quantised Ollama tags and the ``ibm/`` namespace, MLX conversions, LiteLLM
    prefixes such as ``ollama/`` or ``hosted_vllm/``) reaches these through the core's
    name normalisation. Base models (``-base``) are not registered.
    """
    for index, (model_id, (description, extra)) in enumerate(GRANITE42_MODELS.items()):
        register(
            model_id,
            release=_RELEASE,
            aliases=[f"ibm-granite/{model_id}", *extra],
            description=description,
            demo=DEMO if index == 0 else None,
        )
