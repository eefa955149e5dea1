"""The records the plugin host and the registry hand out (plugins, models, resolutions),
which resolving a bundled name creates; the records only plugin discovery makes (a
demo, a hint, a conflict) are in :mod:`._plugin_records`.

Plain frozen attrs classes with no behaviour beyond formatting themselves for messages;
this module imports nothing from the package at run time, so every other module may
import it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Literal

import attrs

if TYPE_CHECKING:
    from ._plugin_records import Demo

__all__ = [
    "FormatterSpec",
    "ModelInfo",
    "PluginInfo",
    "Resolution",
    "Rule",
]

#: The rule that resolved a name (see :meth:`granite_formatters._registry.ModelRegistry.resolve`).
Rule = Literal["id", "alias", "normalized", "pattern"]


@attrs.frozen
class PluginInfo:
    """A plugin as the host sees it.

    ``name`` is the entry-point name (or the name given to ``register_plugin``),
    ``distribution`` the installed distribution that provides it. ``bundled`` plugins
    (the distributions maintained with the core) keep their model names against
    third-party claims unless a plugin has ``override`` (an explicit opt-in).
    """

    name: str
    version: str | None = None
    source: Literal["entry point", "programmatic"] = "entry point"
    module: str | None = None
    bundled: bool = False
    models: tuple[str, ...] = ()
    hooks: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()
    distribution: str | None = None
    override: bool = False

    @property
    def label(self) -> str:
        """``name version``, for messages."""
        return f"{self.name} {self.version}" if self.version else self.name


@attrs.frozen
class FormatterSpec:
    """One registration made by a plugin (checked by the host's ``register`` callback).

    The processors are classes, zero-argument factories or ``"module:attribute"``
    strings, exactly as the plugin passed them.
    """

    model_id: str
    input_processor: str | Callable[[], object]
    output_processor: str | Callable[[], object]
    plugin: str
    aliases: tuple[str, ...] = ()
    patterns: tuple[str, ...] = ()
    description: str = ""
    demo: Demo | None = None


@attrs.frozen
class ModelInfo:
    """A registered model: its id, the names that reach it, its plugin and its demo."""

    model_id: str
    aliases: tuple[str, ...]
    patterns: tuple[str, ...]
    description: str
    plugin: PluginInfo
    demo: Demo | None = None


@attrs.frozen
class Resolution:
    """How a name was resolved: the model, the rule that matched and what it matched."""

    query: str
    model: ModelInfo
    rule: Rule
    normalized: str
    matched: str
