"""The records the plugin host and the registry hand out (plugins, models, resolutions),
and the two a plugin declares beside its models (a demo, a hint for unknown names).

Plain frozen attrs classes with no behaviour beyond formatting themselves for messages;
this module imports nothing from the package, so every other module may import it.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Mapping
from typing import Any, Literal

import attrs

from ._errors import quote

__all__ = [
    "Conflict",
    "Demo",
    "FormatterSpec",
    "Hint",
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
class Demo:
    """What ``granite-format demo`` shows for a model: a request and a sample output.

    ``request`` is a chat-completions body without ``"model"``; ``output`` a raw model
    output in the release's format, answering it; ``today`` the date the prompt is
    rendered with (so that the demo prints the same prompt on every day).
    """

    request: Mapping[str, Any] = attrs.field(hash=False)
    output: str
    today: datetime.date


@attrs.frozen
class Hint:
    """A plugin's advice for model names that nothing resolves.

    ``patterns`` are shell-style globs over normalised names (as ``register``'s);
    ``text`` ends the :class:`~granite_formatters._errors.UnknownModelError` of a name
    they match.
    """

    patterns: tuple[str, ...]
    text: str
    plugin: str


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


@attrs.frozen
class Conflict:
    """A name claimed by two registrations of different models, and who keeps it.

    ``name`` is the name as the losing registration wrote it; ``normalized`` is set
    when the two claims meet only in normalised form (``Granite-3.3-8B-Instruct`` against
    ``granite-3.3-8b-instruct``). ``override`` is true when the winner took the name
    from a higher-precedence plugin through an explicit override.
    """

    name: str
    winner: str
    loser: str
    winner_plugin: str
    loser_plugin: str
    normalized: str | None = None
    override: bool = False

    @property
    def challenger(self) -> str:
        """The plugin that tried to take the name (whether it got it or not)."""
        return self.winner_plugin if self.override else self.loser_plugin

    def describe(self) -> str:
        shown = quote(self.name)
        if self.normalized is not None:
            shown += f" (normalised: {quote(self.normalized)})"
        if self.override:
            return (
                f"plugin {self.winner_plugin} overrides {shown} (model {self.winner}) "
                f"of plugin {self.loser_plugin} (model {self.loser}), as explicitly "
                "allowed"
            )
        return (
            f"{shown} is claimed by plugin {self.winner_plugin} (model {self.winner}) "
            f"and plugin {self.loser_plugin} (model {self.loser}); "
            f"{self.winner_plugin} wins"
        )
