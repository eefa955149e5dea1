"""The exceptions and warnings that granite-formatters raises.

Every exception derives from :class:`FormatterError`, so ``except FormatterError``
catches anything the library raises on purpose. The concrete classes also derive from
the built-in exception a caller would naturally expect (``ValueError`` for a bad
request, ``LookupError`` for an unknown model name, ``ImportError`` for a plugin that
could not be loaded).
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = [
    "FIELD_LIMIT",
    "QUOTE_LIMIT",
    "AmbiguousModelError",
    "DroppedInputWarning",
    "FormatterError",
    "InvalidRequestError",
    "PluginLoadError",
    "PluginWarning",
    "UnknownModelError",
    "quote",
]

#: How many characters of a caller's value an error message shows at most.
QUOTE_LIMIT = 80

#: How many characters of a field path :class:`InvalidRequestError` keeps at most.
FIELD_LIMIT = 160


def quote(value: object, limit: int = QUOTE_LIMIT) -> str:
    """``repr(value)`` cut to about ``limit`` characters, for error messages.

    A long value keeps its start, then ``...`` and its full length, so a message never
    echoes megabytes of caller input: ``'aaaa...' (10000000 characters)``.
    """
    if isinstance(value, str) and len(value) > limit:
        return repr(value[:limit]) + f"... ({len(value)} characters)"
    text = repr(value)
    if len(text) > limit + 2:
        return text[:limit] + f"... ({len(text)} characters as text)"
    return text


class FormatterError(Exception):
    """Base class of every error raised by granite-formatters."""


class InvalidRequestError(FormatterError, ValueError):
    """A request that a formatter cannot render.

    ``field`` names the offending part of the request (``messages[2].content``,
    ``chat_template_kwargs.thinking``, ...); the message says what to change.
    """

    def __init__(self, message: str, *, field: str | None = None) -> None:
        if field is not None and len(field) > FIELD_LIMIT:
            # A field path can hold a caller's key (a tool parameter, an unknown key).
            field = field[:FIELD_LIMIT] + f"... ({len(field)} characters)"
        self.field = field
        text = f"{field}: {message}" if field else message
        super().__init__(text)


class UnknownModelError(FormatterError, LookupError):
    """No installed formatter plugin provides the requested model name.

    Unlike ``KeyError``, whose ``str()`` wraps the message in quotes, this is a
    ``LookupError`` whose ``str()`` is the plain message.
    """

    def __init__(
        self,
        name: object,
        *,
        suggestions: Sequence[str] = (),
        known_count: int = 0,
        plugin_count: int = 0,
        failed_plugins: Sequence[str] = (),
        reason: str | None = None,
        hint: str | None = None,
    ) -> None:
        self.name = name
        self.hint = hint
        self.suggestions = tuple(suggestions)
        self.known_count = known_count
        self.failed_plugins = tuple(failed_plugins)
        lines = [f"Unknown model {quote(name)}." + (f" {reason}" if reason else "")]
        if self.suggestions:
            lines.append("Did you mean: " + ", ".join(quote(s) for s in self.suggestions) + "?")
        lines.append(
            f"{known_count} model names are registered by {plugin_count} plugin(s); "
            "run `granite-format models` to list them."
        )
        for failure in self.failed_plugins:
            lines.append(f"Note: a plugin failed to load and may provide this model: {failure}")
        if not self.failed_plugins:
            lines.append(
                "If this is a Granite release without a formatter here, install the plugin "
                "that provides it (`granite-format plugins` lists what is installed)."
            )
        if hint:
            lines.append(hint)
        super().__init__("\n".join(lines))

    def __str__(self) -> str:
        return str(self.args[0])


class AmbiguousModelError(UnknownModelError):
    """A name that equally specific patterns of two plugins both claim."""

    def __init__(self, name: object, candidates: Sequence[tuple[str, str]]) -> None:
        self.candidates = tuple(candidates)
        listed = "; ".join(f"{model} (plugin {plugin})" for model, plugin in self.candidates)
        FormatterError.__init__(
            self,
            f"Model name {quote(name)} is ambiguous: it matches {listed} equally well. "
            "Use the exact model id instead.",
        )
        self.name = name
        self.hint = None
        self.suggestions = tuple(model for model, _ in self.candidates)
        self.known_count = 0
        self.failed_plugins = ()


class PluginLoadError(FormatterError, ImportError):
    """A plugin that failed to import, to register, or to pass validation."""

    def __init__(self, plugin: str, version: str | None, problem: str) -> None:
        self.plugin = plugin
        self.version = version
        self.problem = problem
        label = f"{plugin} {version}" if version else plugin
        super().__init__(f"plugin {label}: {problem}")

    def __str__(self) -> str:
        return str(self.args[0])


class PluginWarning(UserWarning):
    """Issued when a plugin is skipped or a registration conflict is resolved."""


class DroppedInputWarning(UserWarning):
    """Issued in template-compatible mode (``strict=False``) for each part of a request
    that the prompt leaves out, exactly as the official chat template would.

    In the default strict mode the same requests raise :class:`InvalidRequestError`.
    """
