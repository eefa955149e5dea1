"""granite-formatters: exact prompts and structured parsing for IBM Granite chat models.

>>> from granite_formatters import get_formatter
>>> formatter = get_formatter("ibm-granite/granite-3.2-8b-instruct")   # doctest: +SKIP
>>> prompt = formatter.format({"messages": [{"role": "user", "content": "Hi"}]})  # doctest: +SKIP
>>> message = formatter.parse(raw_model_output)                          # doctest: +SKIP

Importing this package is cheap: nothing is imported until it is used, and plugins are
discovered on the first lookup.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._api import (
    get_formatter,
    get_input_processor,
    get_output_processor,
    list_models,
    list_plugins,
    plugin_errors,
    register_plugin,
    resolve_model,
    unregister_plugin,
)
from ._lazy import lazy_getattr
from .hookspecs import PLUGIN_API_VERSION, hookimpl

if TYPE_CHECKING:
    from .errors import (
        AmbiguousModelError,
        FormatterError,
        InvalidRequestError,
        PluginLoadError,
        PluginWarning,
        UnknownModelError,
    )
    from .hookspecs import Register
    from .processors import Formatter, InputProcessor, OutputProcessor, RequestLike
    from .records import ModelInfo, PluginInfo, Resolution
    from .types import AssistantMessage, ChatCompletion, ChatMessage, Document, ToolCall

__version__ = "0.1.0"

__all__ = [
    "PLUGIN_API_VERSION",
    "AmbiguousModelError",
    "AssistantMessage",
    "ChatCompletion",
    "ChatMessage",
    "Document",
    "Formatter",
    "FormatterError",
    "InputProcessor",
    "InvalidRequestError",
    "ModelInfo",
    "OutputProcessor",
    "PluginInfo",
    "PluginLoadError",
    "PluginWarning",
    "Register",
    "RequestLike",
    "Resolution",
    "ToolCall",
    "UnknownModelError",
    "__version__",
    "get_formatter",
    "get_input_processor",
    "get_output_processor",
    "hookimpl",
    "list_models",
    "list_plugins",
    "plugin_errors",
    "register_plugin",
    "resolve_model",
    "unregister_plugin",
]

_LAZY = {
    "AmbiguousModelError": "errors",
    "FormatterError": "errors",
    "InvalidRequestError": "errors",
    "PluginLoadError": "errors",
    "PluginWarning": "errors",
    "UnknownModelError": "errors",
    "Formatter": "processors",
    "InputProcessor": "processors",
    "OutputProcessor": "processors",
    "RequestLike": "processors",
    "ModelInfo": "records",
    "PluginInfo": "records",
    "Register": "hookspecs",
    "Resolution": "records",
    "AssistantMessage": "types",
    "ChatCompletion": "types",
    "ChatMessage": "types",
    "Document": "types",
    "ToolCall": "types",
}


__getattr__ = lazy_getattr(__name__, _LAZY, globals())


def __dir__() -> list[str]:
    return sorted(__all__)
