"""Granite 3.1 instruct formatter: a third-party plugin for granite-formatters.

The ``granite_formatters`` entry point of this distribution names this module, so it
is what the core imports when it discovers plugins. It only registers model names with
the release declared in :mod:`.releases`, named by a ``"module:attribute"`` string that
the core imports the first time a Granite 3.1 model is actually used (the core's engine
renders and parses it). Importing this module costs one import of the core's
``hookimpl`` marker and nothing else.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from granite_formatters import hookimpl

if TYPE_CHECKING:
    from granite_formatters import Register

__all__ = ["MODELS", "register_formatters"]

__version__ = "0.1.0"

_RELEASE = "granite_formatters_granite31.releases:GRANITE31"

#: ``model id -> (Ollama library name, Ollama size tag, description)``. The four
#: instruct models of Granite 3.1 share one chat template.
_OLLAMA: dict[str, tuple[str, str, str]] = {
    "granite-3.1-2b-instruct": ("granite3.1-dense", "2b", "IBM Granite 3.1 2b instruct"),
    "granite-3.1-8b-instruct": ("granite3.1-dense", "8b", "IBM Granite 3.1 8b instruct"),
    "granite-3.1-1b-a400m-instruct": (
        "granite3.1-moe",
        "1b",
        "IBM Granite 3.1 1b-a400m instruct (mixture of experts)",
    ),
    "granite-3.1-3b-a800m-instruct": (
        "granite3.1-moe",
        "3b",
        "IBM Granite 3.1 3b-a800m instruct (mixture of experts)",
    ),
}

#: The Ollama tag each library name's ``latest`` points to.
_OLLAMA_LATEST = {"granite3.1-dense": "8b", "granite3.1-moe": "3b"}

#: The registered model ids.
MODELS = tuple(_OLLAMA)


def _aliases(model_id: str) -> list[str]:
    library, size, _ = _OLLAMA[model_id]
    # The core normalises names before comparing them (organisation, provider prefix,
    # quantisation and .gguf suffixes go; "3-1" becomes "3.1"), so one spelling per
    # name family is enough: "granite3.1-dense:8b" also catches
    # "ollama/granite3.1-dense:8b", and "granite3.1-dense:8b-instruct" catches
    # "granite3.1-dense:8b-instruct-q4_K_M".
    aliases = [
        f"ibm-granite/{model_id}",
        f"{library}:{size}",
        f"{library}:{size}-instruct",
    ]
    if model_id == "granite-3.1-8b-instruct":
        aliases.append("ibm/granite-3-1-8b-instruct")  # watsonx.ai
    if _OLLAMA_LATEST[library] == size:
        aliases += [library, f"{library}:latest"]
    return aliases


@hookimpl
def register_formatters(register: Register) -> None:
    """Register the Granite 3.1 instruct models (2b, 8b and the two MoE models)."""
    for model_id, (_, _, description) in _OLLAMA.items():
        register(
            model_id,
            release=_RELEASE,
            aliases=_aliases(model_id),
            # Fine-tunes and re-uploads that keep the instruct template.
            patterns=[f"{model_id}-*"],
            description=description,
            requires_api=(1, 4),  # (a release named by a string)
        )
