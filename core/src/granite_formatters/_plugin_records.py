"""The records only plugin discovery makes: what a plugin declares beside its models
(a demo, a hint for unknown names) and a name two registrations claim.

Kept apart from :mod:`._records` so that a first prompt resolved from the model
catalogue (no plugin imported) does not create their classes. Plain frozen attrs
classes; this module imports nothing from the package but the errors' ``quote``.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any

import attrs

from ._errors import quote

__all__ = ["Conflict", "Demo", "Hint"]


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
