"""The public functions, as thin calls into the process-wide plugin host.

Kept separate from ``__init__`` so that importing the package imports neither pydantic
nor pluggy: the host (and everything behind it) is imported on the first call, and
:func:`get_formatter` of a name in the bundled model catalogue imports neither the other
plugins nor pluggy (see :meth:`~granite_formatters._plugins.PluginHost.formatter`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar, overload

if TYPE_CHECKING:
    from ._errors import PluginLoadError
    from ._processors import Formatter
    from ._records import ModelInfo, PluginInfo, Resolution
    from ._registry import ModelRegistry
    from ._types import AssistantMessage


def _registry() -> ModelRegistry:
    from ._plugins import default_host

    return default_host().registry()


M = TypeVar("M", bound="AssistantMessage")


@overload
def get_formatter(model: str, /) -> Formatter[AssistantMessage]: ...


@overload
def get_formatter(model: str, message_type: type[M], /) -> Formatter[M]: ...


def get_formatter(
    model: str, message_type: type[AssistantMessage] | None = None, /
) -> Formatter[AssistantMessage]:
    """The formatter (input and output processor) for a model name.

    Any name people use works: a model id (``granite-3.2-8b-instruct``), a Hugging Face
    id, an Ollama tag, a GGUF file name, a watsonx id. Raises
    :class:`~granite_formatters.UnknownModelError` for a name no plugin provides.

    With ``message_type`` (for example ``Granite3AssistantMessage``) the formatter is
    typed as parsing into that class, so ``parse(...).citations`` type-checks; a
    :class:`TypeError` says so when the model's output processor declares another
    message type.
    """
    from ._plugins import default_host

    formatter = default_host().formatter(model)
    if message_type is None:
        return formatter
    return formatter.expecting(message_type)


def resolve_model(model: str, /) -> Resolution:
    """Resolve a name without creating processors: which model, which rule, which plugin."""
    return _registry().resolve(model)


def list_models() -> list[ModelInfo]:
    """Every registered model with its aliases, patterns and plugin, sorted by id."""
    return _registry().list_models()


def list_plugins() -> list[PluginInfo]:
    """Every plugin that was found, with its version, models and problems."""
    return _registry().list_plugins()


def plugin_errors() -> list[PluginLoadError]:
    """Problems met while loading plugins; empty when every plugin loaded cleanly."""
    from ._plugins import default_host

    return default_host().plugin_errors()


def register_plugin(plugin: object, *, name: str, override: bool = False) -> None:
    """Register a plugin object without packaging (tests, notebooks, one-off formatters).

    ``plugin`` is a module, class or instance whose ``register_formatters`` is marked
    with :data:`~granite_formatters.hookimpl`. The registry is rebuilt on next use.
    Names that a bundled plugin registers (ids, aliases, their normalised forms) stay
    with it unless ``override=True``; each takeover, allowed or refused, is a warning
    recorded in :func:`plugin_errors`.
    """
    from ._plugins import default_host

    default_host().register_plugin(plugin, name=name, override=override)


def unregister_plugin(name: str, /) -> None:
    """Remove a plugin added with :func:`register_plugin`."""
    from ._plugins import default_host

    default_host().unregister_plugin(name)
