"""The plugin host: finds plugins, loads each one in isolation, and builds the registry.

Plugins come from the ``granite_formatters`` entry-point group (one entry point per
distribution, named after the distribution) and from :func:`register_plugin`. Each
entry point is loaded on its own, so a plugin that fails to import, fails validation
or raises in its hook is recorded (:func:`plugin_errors`, a :class:`PluginWarning`)
while the others keep working.

Environment variables, read when plugins are first loaded:

``GRANITE_FORMATTERS_LOAD_PLUGINS``
    Comma-separated allowlist of entry-point plugins to load; empty loads none.
``GRANITE_FORMATTERS_DISABLE_PLUGINS``
    Comma-separated plugins not to load.
``GRANITE_FORMATTERS_STRICT_PLUGINS``
    ``1`` turns every plugin problem into a :class:`PluginLoadError`.
"""

from __future__ import annotations

import importlib.metadata
import os
import threading
import warnings
from collections.abc import Callable, Mapping
from typing import Any

import attrs
import pluggy

from . import hookspecs
from .errors import PluginLoadError, PluginWarning
from .hookspecs import PROJECT_NAME
from .registry import (
    FormatterSpec,
    InputProcessor,
    ModelRegistry,
    OutputProcessor,
    PluginInfo,
    ProcessorSource,
    check_api_version,
)

__all__ = [
    "BUNDLED_PLUGINS",
    "ENV_DISABLE",
    "ENV_LOAD",
    "ENV_STRICT",
    "PluginHost",
    "default_host",
]

ENV_LOAD = "GRANITE_FORMATTERS_LOAD_PLUGINS"
ENV_DISABLE = "GRANITE_FORMATTERS_DISABLE_PLUGINS"
ENV_STRICT = "GRANITE_FORMATTERS_STRICT_PLUGINS"

#: Plugins maintained in this repository; they win registration conflicts.
BUNDLED_PLUGINS = frozenset({"granite-formatters-granite32", "granite-formatters-granite33"})

_HOOK_NAMES = ("register_formatters",)


def _names(value: str) -> list[str]:
    return [item.strip() for item in value.split(",") if item.strip()]


@attrs.frozen
class _Candidate:
    """A plugin object ready to register, with what is known about it."""

    info: PluginInfo
    obj: object


class _Recorder:
    """The ``register`` callback handed to one plugin's hook."""

    def __init__(self, plugin: str) -> None:
        self.plugin = plugin
        self.specs: list[FormatterSpec] = []

    def __call__(
        self,
        model_id: str,
        *,
        input_processor: ProcessorSource[InputProcessor],
        output_processor: ProcessorSource[OutputProcessor],
        aliases: Any = (),
        patterns: Any = (),
        description: str = "",
        requires_api: tuple[int, int] | None = None,
    ) -> None:
        if not isinstance(model_id, str) or not model_id.strip():
            raise TypeError(f"model_id must be a non-empty string, got {model_id!r}")
        for label, items in (("aliases", aliases), ("patterns", patterns)):
            if isinstance(items, str) or not all(isinstance(i, str) and i for i in items):
                raise TypeError(f"{label} must be a list of non-empty strings, got {items!r}")
        for label, source in (
            ("input_processor", input_processor),
            ("output_processor", output_processor),
        ):
            if not (isinstance(source, str) and ":" in source) and not callable(source):
                raise TypeError(
                    f"{label} must be a class, a factory or a 'module:attribute' string, "
                    f"got {source!r}"
                )
        problem = check_api_version(requires_api)
        if problem is not None:
            raise RuntimeError(problem)
        self.specs.append(
            FormatterSpec(
                model_id=model_id,
                input_processor=input_processor,
                output_processor=output_processor,
                plugin=self.plugin,
                aliases=tuple(aliases),
                patterns=tuple(patterns),
                description=description,
            )
        )


class PluginHost:
    """Discovers plugins and keeps the registry built from them.

    The process-wide instance is :func:`default_host`; tests can make their own with
    ``PluginHost(entry_points=False)`` and register plugin objects on it.
    """

    def __init__(
        self,
        *,
        entry_points: bool = True,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        self._use_entry_points = entry_points
        self._environ = environ
        self._lock = threading.RLock()
        self._loaded: list[_Candidate] | None = None
        self._load_errors: list[PluginLoadError] = []
        self._programmatic: dict[str, object] = {}
        self._registry: ModelRegistry | None = None
        self.load_count = 0

    # -- configuration ------------------------------------------------------------

    @property
    def environ(self) -> Mapping[str, str]:
        return os.environ if self._environ is None else self._environ

    @property
    def strict(self) -> bool:
        return self.environ.get(ENV_STRICT, "").strip().lower() in ("1", "true", "yes", "on")

    def register_plugin(self, obj: object, *, name: str) -> None:
        """Add a plugin object (a module, class or instance with hook implementations)."""
        if not isinstance(name, str) or not name:
            raise TypeError("register_plugin() needs a non-empty name")
        with self._lock:
            self._programmatic[name] = obj
            self._registry = None

    def unregister_plugin(self, name: str) -> None:
        """Remove a plugin added with :meth:`register_plugin`; unknown names are an error."""
        with self._lock:
            if name not in self._programmatic:
                raise LookupError(f"no plugin named {name!r} was registered with register_plugin()")
            del self._programmatic[name]
            self._registry = None

    def reset(self) -> None:
        """Forget loaded entry points and programmatic plugins (for tests)."""
        with self._lock:
            self._loaded = None
            self._load_errors = []
            self._programmatic.clear()
            self._registry = None

    # -- loading ------------------------------------------------------------------

    def _fail(self, error: PluginLoadError, cause: BaseException | None = None) -> None:
        if self.strict:
            raise error from cause
        self._load_errors.append(error)

    def _load_entry_points(self) -> list[_Candidate]:
        environ = self.environ
        allow = None if ENV_LOAD not in environ else set(_names(environ[ENV_LOAD]))
        deny = set(_names(environ.get(ENV_DISABLE, "")))
        grouped: dict[str, list[importlib.metadata.EntryPoint]] = {}
        for ep in importlib.metadata.entry_points(group=PROJECT_NAME):
            grouped.setdefault(ep.name, []).append(ep)
        candidates: list[_Candidate] = []
        for name in sorted(grouped):
            if name in deny or (allow is not None and name not in allow):
                continue
            eps = grouped[name]
            by_dist: dict[str, importlib.metadata.EntryPoint] = {}
            for ep in eps:
                dist = ep.dist.name if ep.dist is not None else "?"
                by_dist.setdefault(dist, ep)
            ordered = sorted(by_dist.items())
            dist_name, ep = ordered[0]
            version = ep.dist.version if ep.dist is not None else None
            if len(ordered) > 1:
                others = ", ".join(
                    f"{d} {e.dist.version if e.dist else '?'}" for d, e in ordered[1:]
                )
                for _other, other_ep in ordered[1:]:
                    self._fail(
                        PluginLoadError(
                            name,
                            other_ep.dist.version if other_ep.dist else None,
                            f"entry point name {name!r} is used by distributions {dist_name} "
                            f"and {others}; only {dist_name} was loaded. Each plugin must "
                            "name its entry point after its own distribution.",
                        )
                    )
            try:
                obj = ep.load()
            except BaseException as exc:
                if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                    raise
                self._fail(PluginLoadError(name, version, f"import failed: {exc!r}"), exc)
                continue
            candidates.append(
                _Candidate(
                    PluginInfo(
                        name=name,
                        version=version,
                        source="entry point",
                        module=ep.value,
                        bundled=name in BUNDLED_PLUGINS and dist_name == name,
                    ),
                    obj,
                )
            )
        if allow is not None:
            for missing in sorted(allow - set(grouped)):
                self._fail(PluginLoadError(missing, None, f"named in {ENV_LOAD} but not installed"))
        return candidates

    def _candidates(self) -> list[_Candidate]:
        if self._loaded is None:
            self._load_errors = []
            self._loaded = self._load_entry_points() if self._use_entry_points else []
            self.load_count += 1
        programmatic = [
            _Candidate(
                PluginInfo(
                    name=name,
                    version=getattr(obj, "__version__", None),
                    source="programmatic",
                    module=getattr(obj, "__name__", type(obj).__name__),
                ),
                obj,
            )
            for name, obj in self._programmatic.items()
        ]
        ordered = sorted(self._loaded, key=lambda c: (not c.info.bundled, c.info.name))
        return ordered + programmatic

    def registry(self) -> ModelRegistry:
        """The registry, built on first use and rebuilt after plugins change."""
        current = self._registry
        if current is not None:
            return current
        with self._lock:
            if self._registry is None:
                self._registry = self._build()
            return self._registry

    def _build(self) -> ModelRegistry:
        candidates = self._candidates()
        pm = pluggy.PluginManager(PROJECT_NAME)
        pm.add_hookspecs(hookspecs)
        infos: list[PluginInfo] = []
        specs: list[FormatterSpec] = []
        build_errors: list[PluginLoadError] = []

        def fail(info: PluginInfo, problem: str, cause: BaseException | None = None) -> PluginInfo:
            error = PluginLoadError(info.name, info.version, problem)
            if self.strict:
                raise error from cause
            build_errors.append(error)
            return attrs.evolve(info, errors=(*info.errors, problem))

        for candidate in candidates:
            info = candidate.info
            try:
                pm.register(candidate.obj, name=info.name)
            except ValueError as exc:
                infos.append(fail(info, f"could not be registered: {exc}", exc))
                continue
            except pluggy.PluginValidationError as exc:
                infos.append(fail(info, f"invalid hook implementation: {exc}", exc))
                continue
            hooks: list[str] = []
            unknown: list[str] = []
            for hook_name, caller in vars(pm.hook).items():
                if not isinstance(caller, pluggy.HookCaller):
                    continue
                if any(impl.plugin is candidate.obj for impl in caller.get_hookimpls()):
                    (hooks if caller.has_spec() else unknown).append(hook_name)
            info = attrs.evolve(info, hooks=tuple(sorted(hooks)))
            for hook_name in unknown:
                info = fail(
                    info,
                    f"implements unknown hook {hook_name!r} (misspelt?); "
                    f"known hooks: {', '.join(_HOOK_NAMES)}",
                )
            recorder = _Recorder(info.name)
            for impl in pm.hook.register_formatters.get_hookimpls():
                if impl.plugin is not candidate.obj:
                    continue
                try:
                    _call_hook(impl.function, impl.argnames, register=recorder)
                except Exception as exc:  # noqa: BLE001 - isolate any plugin failure
                    recorder.specs.clear()
                    info = fail(info, f"register_formatters hook raised {exc!r}", exc)
            specs.extend(recorder.specs)
            infos.append(info)
        load_errors = self._load_errors + build_errors
        for error in self._load_errors:
            index = next((i for i, info in enumerate(infos) if info.name == error.plugin), None)
            if index is None:
                infos.append(
                    PluginInfo(name=error.plugin, version=error.version, errors=(error.problem,))
                )
            else:
                infos[index] = attrs.evolve(
                    infos[index], errors=(*infos[index].errors, error.problem)
                )
        registry = ModelRegistry.build(specs, infos, load_errors=load_errors)
        for conflict in registry.conflicts:
            message = f"granite-formatters: registration conflict: {conflict.describe()}"
            if self.strict:
                raise PluginLoadError(conflict.loser_plugin, None, message)
            warnings.warn(message, PluginWarning, stacklevel=4)
        for error in load_errors:
            warnings.warn(f"granite-formatters: {error}", PluginWarning, stacklevel=4)
        return registry

    def plugin_errors(self) -> list[PluginLoadError]:
        """Problems met while loading plugins (empty when all is well)."""
        registry = self.registry()
        conflict_errors = [
            PluginLoadError(c.loser_plugin, None, c.describe()) for c in registry.conflicts
        ]
        return list(registry.load_errors) + conflict_errors


def _call_hook(
    function: Callable[..., object], argnames: tuple[str, ...], **available: Any
) -> None:
    """Call a hook implementation with only the arguments it declares."""
    function(**{name: available[name] for name in argnames if name in available})


_default_host: PluginHost | None = None
_default_lock = threading.Lock()


def default_host() -> PluginHost:
    """The process-wide plugin host (created on first use, never at import)."""
    global _default_host
    host = _default_host
    if host is None:
        with _default_lock:
            if _default_host is None:
                _default_host = PluginHost()
            host = _default_host
    return host
