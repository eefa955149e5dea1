"""The plugin contract: the ``register_formatters`` hook, the ``Register`` and
``RegisterHint`` callbacks it is given, the ``hookimpl`` marker and the API version.

See ``docs/plugins/hooks.md``.
"""

from __future__ import annotations

from ._hookspecs import (
    PLUGIN_API_VERSION,
    Register,
    RegisterHint,
    check_api_version,
    hookimpl,
    register_formatters,
)

__all__ = [
    "PLUGIN_API_VERSION",
    "Register",
    "RegisterHint",
    "check_api_version",
    "hookimpl",
    "register_formatters",
]
