"""granite-formatters: exact prompts and structured parsing for IBM Granite chat models.

>>> from granite_formatters import get_formatter
>>> formatter = get_formatter("ibm-granite/granite-3.2-8b-instruct")   # doctest: +SKIP
>>> prompt = formatter.format({"messages": [{"role": "user", "content": "Hi"}]})  # doctest: +SKIP
>>> message = formatter.parse(raw_model_output)                          # doctest: +SKIP

The package root holds what a user or a plugin author needs; everything else lives in
its module: the request and message models in :mod:`granite_formatters.types`, every
exception and warning in :mod:`granite_formatters.errors`, the plugin and model records
in :mod:`granite_formatters.records`, the plugin contract in
:mod:`granite_formatters.hookspecs`, the syntaxes a :class:`Release` composes in
:mod:`granite_formatters.syntax`.

Importing this package is cheap: nothing is imported until it is used, and plugins are
discovered on the first lookup.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._api import (
    get_formatter,
    list_models,
    list_plugins,
    plugin_errors,
    register_plugin,
    resolve_model,
    unregister_plugin,
)
from ._lazy import lazy_getattr

if TYPE_CHECKING:
    from .errors import FormatterError, InvalidRequestError, UnknownModelError
    from .hookspecs import PLUGIN_API_VERSION, Register, hookimpl
    from .processors import Formatter, InputProcessor, OutputProcessor, RequestLike
    from .release import Release
    from .types import AssistantMessage, ChatCompletion

__version__ = "0.1.0"

__all__ = [
    "PLUGIN_API_VERSION",
    "AssistantMessage",
    "ChatCompletion",
    "Formatter",
    "FormatterError",
    "InputProcessor",
    "InvalidRequestError",
    "OutputProcessor",
    "Register",
    "Release",
    "RequestLike",
    "UnknownModelError",
    "__version__",
    "get_formatter",
    "hookimpl",
    "list_models",
    "list_plugins",
    "plugin_errors",
    "register_plugin",
    "resolve_model",
    "unregister_plugin",
]

# (The plugin contract imports pluggy: a plugin's hook module reads it, a first prompt
# of a bundled model does not.)
_LAZY = {
    "PLUGIN_API_VERSION": "hookspecs",
    "Register": "hookspecs",
    "hookimpl": "hookspecs",
    "FormatterError": "errors",
    "InvalidRequestError": "errors",
    "UnknownModelError": "errors",
    "Formatter": "processors",
    "InputProcessor": "processors",
    "OutputProcessor": "processors",
    "RequestLike": "processors",
    "Release": "release",
    "AssistantMessage": "types",
    "ChatCompletion": "types",
}

__getattr__ = lazy_getattr(__name__, _LAZY, globals())


def __dir__() -> list[str]:
    return sorted(__all__)
