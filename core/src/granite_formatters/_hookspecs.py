"""The whole plugin contract of granite-formatters.

A plugin is a module (found through the ``granite_formatters`` entry-point group, or
passed to :func:`granite_formatters.register_plugin`) that implements the hook below,
marked with :data:`hookimpl`::

    from granite_formatters import hookimpl

    @hookimpl
    def register_formatters(register, hint):
        register(
            "granite-4.1-8b",
            release=GRANITE41,  # a granite_formatters.Release: the core renders and parses it
            aliases=["ibm-granite/granite-4.1-8b"],
        )
        hint(["granite-4.1-*"], "This plugin formats Granite 4.1 8b only.")

A model is registered either with a :class:`~granite_formatters.Release` (``release=``,
the usual way: a release made of the core's syntaxes, or of a syntax the plugin
implements) or with its own processors (``input_processor=`` and ``output_processor=``,
the escape hatch), exactly one of the two per call; a release may be given with its own
``output_processor`` (the release renders the prompts, the processor parses). ``hint``
(optional: declare it only if you use it) adds advice to the error for names that
nothing resolves.

This module holds all of it: the hook (:func:`register_formatters`), the shape of the
callbacks it receives (:class:`Register`, :class:`RegisterHint`), and the contract's version
(:data:`PLUGIN_API_VERSION`, checked by :func:`check_api_version`). The processors a
plugin registers implement :class:`~granite_formatters.InputProcessor` and
:class:`~granite_formatters.OutputProcessor`.

Compatibility rule: hook arguments, ``register`` keywords and processor options are
only ever added, never removed or renamed, and a plugin written against an earlier
contract keeps working: a hook implementation may declare fewer arguments than the
specification, and a processor's ``transform`` is passed only the options it declares
(a caller who explicitly asks a processor for an option it does not declare gets a
:class:`~granite_formatters.FormatterError` naming the option and the plugin). The
core's :data:`PLUGIN_API_VERSION` changes its minor number when something is added and
its major number if anything is ever removed; a plugin that needs an addition says so
with ``requires_api`` and gets a clear error at load time from an older core. The model
catalogue (the ``granite_formatters.models`` entry-point group of a distribution: model
id = ``"module:attribute"`` of its release) is no part of the contract a plugin must
meet: the core reads the bundled distributions' catalogues only, to resolve their model
ids without importing any plugin, and resolves every other name, and every plugin
written against an earlier contract, through the hook as before
(``docs/plugins/hooks.md``, "The model catalogue"). Of the package, a plugin imports
only the public modules (``docs/api.md``, "The public surface"); one that imports a
module since made private fails to load with a
:class:`~granite_formatters.errors.PluginLoadError` that names where its public names went.

History: 1.0, the hook and ``register`` with processors; 1.1, ``register(release=...)``
and the ``special_tokens``/``strict`` options of ``InputProcessor.transform``; 1.2,
``register(demo=...)`` and the hook's ``hint`` argument; 1.3, ``register(release=...,
output_processor=...)``: the release's renderer with the plugin's own output processor;
1.4, ``register(release="module:attribute")``: the release imported when the model is
first used; 1.5, ``Release(layout=...)``: the layout's fields (``system_prompt``,
``tools_block``, ...) are fields of a layout value (``DatedLayout``,
``SystemBlocksLayout``), and ``Release`` still takes them as keywords of their own (set
on the layout they belong to; one of the other layout is refused at declaration with the
new spelling).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Protocol

import pluggy

if TYPE_CHECKING:
    from ._plugin_records import Demo
    from ._processors import InputProcessor, OutputProcessor
    from .release import Release

__all__ = [
    "PLUGIN_API_VERSION",
    "PROJECT_NAME",
    "Register",
    "RegisterHint",
    "check_api_version",
    "hookimpl",
    "hookspec",
    "register_formatters",
]

#: The pluggy project name, entry-point group and marker name of the framework.
PROJECT_NAME = "granite_formatters"

#: The version of the plugin contract: ``(major, minor)``.
PLUGIN_API_VERSION = (1, 5)

hookspec = pluggy.HookspecMarker(PROJECT_NAME)
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)


class Register(Protocol):
    """The ``register`` callback that the ``register_formatters`` hook receives.

    Call it once per model, with either ``release`` (a
    :class:`~granite_formatters.Release`, or from API 1.4 a ``"module:attribute"``
    string naming one, imported only when the model is first used: the core builds the
    processors from it) or
    both ``input_processor`` and ``output_processor`` (classes, zero-argument factories,
    or ``"module:attribute"`` strings imported only when the model is first used).
    ``release`` with ``output_processor`` (API 1.3) renders the release's prompts and
    parses with the given processor (a release whose output keeps its own parser).
    ``aliases`` are other exact names of the model, ``patterns`` shell-style globs over
    normalised names, ``requires_api`` the lowest :data:`PLUGIN_API_VERSION` the plugin
    needs, ``demo`` what ``granite-format demo`` shows for the model (a
    :class:`~granite_formatters.records.Demo`).

    This signature is the only definition of the callback: the host checks every call
    against it.
    """

    def __call__(
        self,
        model_id: str,
        *,
        release: Release | str | None = None,
        input_processor: str | Callable[[], InputProcessor] | None = None,
        output_processor: str | Callable[[], OutputProcessor] | None = None,
        aliases: Iterable[str] = (),
        patterns: Iterable[str] = (),
        description: str = "",
        requires_api: tuple[int, int] | None = None,
        demo: Demo | None = None,
    ) -> None: ...


class RegisterHint(Protocol):
    """The ``hint`` callback that the ``register_formatters`` hook may receive.

    A name that nothing resolves and that one of ``patterns`` (shell-style globs over
    normalised names; names of base, Guardian and vision models never match) matches
    gets ``text`` at the end of its :class:`~granite_formatters.UnknownModelError`.
    """

    def __call__(self, patterns: Iterable[str], text: str) -> None: ...


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
def register_formatters(register: Register, hint: RegisterHint) -> None:
    """Register the formatters that this plugin provides, by calling ``register``
    (see :class:`Register`) once per model, and any hints (see :class:`RegisterHint`)."""
