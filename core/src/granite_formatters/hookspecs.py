"""The whole plugin contract of granite-formatters.

A plugin is a module (found through the ``granite_formatters`` entry-point group, or
passed to :func:`granite_formatters.register_plugin`) that implements the hooks below,
marked with :data:`hookimpl`::

    from granite_formatters import hookimpl

    @hookimpl
    def register_formatters(register):
        register(
            "granite-3.1-8b-instruct",
            input_processor="my_plugin.input:MyInputProcessor",
            output_processor="my_plugin.output:MyOutputProcessor",
            aliases=["ibm-granite/granite-3.1-8b-instruct"],
        )

Compatibility policy: hook arguments are only ever added, never removed or renamed, and
a hook implementation may declare fewer arguments than the specification. The core's
:data:`PLUGIN_API_VERSION` changes its minor number when something is added and its
major number if anything is ever removed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    from .registry import Register

__all__ = ["PLUGIN_API_VERSION", "PROJECT_NAME", "hookimpl", "hookspec"]

#: The pluggy project name, entry-point group and marker name of the framework.
PROJECT_NAME = "granite_formatters"

#: The version of the plugin contract: ``(major, minor)``.
PLUGIN_API_VERSION = (1, 0)

hookspec = pluggy.HookspecMarker(PROJECT_NAME)
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)


@hookspec
def register_formatters(register: Register) -> None:
    """Register the formatters that this plugin provides.

    Call ``register(model_id, *, input_processor, output_processor, aliases=(),
    patterns=(), description="", requires_api=None)`` once per model. The processors
    are classes, zero-argument factories, or ``"module:attribute"`` strings that are
    imported only when the model is first used, so registering stays cheap.
    """
