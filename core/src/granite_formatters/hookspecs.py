"""The whole plugin contract of granite-formatters.

A plugin is a module (found through the ``granite_formatters`` entry-point group, or
passed to :func:`granite_formatters.register_plugin`) that implements the hook below,
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

This module holds all of it: the hook (:func:`register_formatters`), the shape of the
``register`` callback it receives (:class:`Register`), and the contract's version
(:data:`PLUGIN_API_VERSION`, checked by :func:`check_api_version`). The processors a
plugin registers implement :class:`~granite_formatters.InputProcessor` and
:class:`~granite_formatters.OutputProcessor`.

Compatibility policy: hook arguments are only ever added, never removed or renamed, and
a hook implementation may declare fewer arguments than the specification. The core's
:data:`PLUGIN_API_VERSION` changes its minor number when something is added and its
major number if anything is ever removed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Protocol

import pluggy

if TYPE_CHECKING:
    from .processors import InputProcessor, OutputProcessor

__all__ = [
    "PLUGIN_API_VERSION",
    "PROJECT_NAME",
    "Register",
    "check_api_version",
    "hookimpl",
    "hookspec",
    "register_formatters",
]

#: The pluggy project name, entry-point group and marker name of the framework.
PROJECT_NAME = "granite_formatters"

#: The version of the plugin contract: ``(major, minor)``.
PLUGIN_API_VERSION = (1, 0)

hookspec = pluggy.HookspecMarker(PROJECT_NAME)
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)


class Register(Protocol):
    """The ``register`` callback that the ``register_formatters`` hook receives.

    Call it once per model. ``input_processor`` and ``output_processor`` are classes,
    zero-argument factories, or ``"module:attribute"`` strings imported only when the
    model is first used, so registering stays cheap. ``aliases`` are other exact names
    of the model, ``patterns`` shell-style globs over normalised names,
    ``requires_api`` the lowest :data:`PLUGIN_API_VERSION` the plugin needs.

    This signature is the only definition of the callback: the host checks every call
    against it.
    """

    def __call__(
        self,
        model_id: str,
        *,
        input_processor: str | Callable[[], InputProcessor],
        output_processor: str | Callable[[], OutputProcessor],
        aliases: Iterable[str] = (),
        patterns: Iterable[str] = (),
        description: str = "",
        requires_api: tuple[int, int] | None = None,
    ) -> None: ...


def check_api_version(required: tuple[int, int] | None) -> str | None:
    """Return a problem description when this core cannot satisfy ``required``."""
    if required is None:
        return None
    major, minor = required
    have_major, have_minor = PLUGIN_API_VERSION
    if major != have_major or minor > have_minor:
        return (
            f"requires plugin API {major}.{minor}, but this granite-formatters provides "
            f"{have_major}.{have_minor}; upgrade granite-formatters or the plugin"
        )
    return None


@hookspec
def register_formatters(register: Register) -> None:
    """Register the formatters that this plugin provides, by calling ``register``
    (see :class:`Register`) once per model."""
