"""The exceptions and warnings granite-formatters raises or issues, and :func:`quote`.

Every exception derives from :class:`FormatterError`; :func:`quote` cuts a caller's
value short for a message, as the library's own messages do.
"""

from __future__ import annotations

from ._errors import (
    AmbiguousModelError,
    DroppedInputWarning,
    FormatterError,
    InvalidRequestError,
    PluginLoadError,
    PluginWarning,
    UnknownModelError,
    quote,
)

__all__ = [
    "AmbiguousModelError",
    "DroppedInputWarning",
    "FormatterError",
    "InvalidRequestError",
    "PluginLoadError",
    "PluginWarning",
    "UnknownModelError",
    "quote",
]
