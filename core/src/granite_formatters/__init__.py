"""granite-formatters: exact prompts and structured parsing for IBM Granite chat models.

>>> from granite_formatters import get_formatter
>>> formatter = get_formatter("ibm-granite/granite-3.2-8b-instruct")   # doctest: +SKIP
>>> prompt = formatter.format({"messages": [{"role": "user", "content": "Hi"}]})  # doctest: +SKIP
>>> message = formatter.parse(raw_model_output)                          # doctest: +SKIP

The package root holds what a user or a plugin author needs; everything else lives in
its module: the request and message models in :mod:`granite_formatters._types`, every
exception and warning in :mod:`granite_formatters._errors`, the plugin and model records
in :mod:`granite_formatters._records`, the plugin contract in
:mod:`granite_formatters._hookspecs`, the syntaxes a :class:`Release` composes in
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
    from ._errors import FormatterError, InvalidRequestError, UnknownModelError
    from ._hookspecs import PLUGIN_API_VERSION, Register, hookimpl
    from ._processors import Formatter, InputProcessor, OutputProcessor, RequestLike
    from ._types import AssistantMessage, ChatCompletion
    from .release import Release

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
    "PLUGIN_API_VERSION": "_hookspecs",
    "Register": "_hookspecs",
    "hookimpl": "_hookspecs",
    "FormatterError": "_errors",
    "InvalidRequestError": "_errors",
    "UnknownModelError": "_errors",
    "Formatter": "_processors",
    "InputProcessor": "_processors",
    "OutputProcessor": "_processors",
    "RequestLike": "_processors",
    "Release": "release",
    "AssistantMessage": "_types",
    "ChatCompletion": "_types",
}

__getattr__ = lazy_getattr(__name__, _LAZY, globals())


def __dir__() -> list[str]:
    return sorted(__all__)
