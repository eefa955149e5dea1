"""The plugin host: finds plugins, loads each one in isolation, and builds the registry.

Plugins come from the ``granite_formatters`` entry-point group and from
:func:`register_plugin`; one that fails to import, fails validation or raises in its
hook is recorded (:func:`plugin_errors`, a :class:`PluginWarning`) while the others keep
working. The bundled plugins (:data:`BUNDLED_PLUGINS`) keep their entry-point names and
model names. The environment variables that select, disable, override and make plugin
problems strict are described in ``docs/plugins/index.md``; precedence in
``docs/security.md``.
"""

from __future__ import annotations

import functools
import os
import re
import threading
import warnings
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import attrs

from ._catalog import CatalogEntry, read_catalog
from ._errors import PluginLoadError, PluginWarning, quote
from ._moved import moved_hint
from ._names import normalize_model_name
from ._records import FormatterSpec, PluginInfo
from ._registry import ModelRegistry, new_formatter

if TYPE_CHECKING:
    import importlib.metadata
    import inspect

    import pluggy

    from ._hookspecs import Register, RegisterHint
    from ._plugin_records import Hint
    from ._processors import Formatter
    from ._types import AssistantMessage

__all__ = [
    "BUNDLED_PLUGINS",
    "ENV_DISABLE",
    "ENV_LOAD",
    "ENV_OVERRIDE",
    "ENV_STRICT",
    "PluginHost",
    "default_host",
]

ENV_LOAD = "GRANITE_FORMATTERS_LOAD_PLUGINS"
ENV_DISABLE = "GRANITE_FORMATTERS_DISABLE_PLUGINS"
ENV_OVERRIDE = "GRANITE_FORMATTERS_OVERRIDE_PLUGINS"
ENV_STRICT = "GRANITE_FORMATTERS_STRICT_PLUGINS"

#: The distributions maintained with the core (identified by distribution name). Their
#: entry points are the bundled plugins and their model names win conflicts.
BUNDLED_PLUGINS = frozenset(
    {
        "granite-formatters-granite32",
        "granite-formatters-granite33",
        "granite-formatters-granite4",
        "granite-formatters-granite42",
    }
)


#: How many names :meth:`PluginHost.formatter` keeps (then it starts again).
_MAX_MEMO = 256

#: The memo key after a change: equal to no state.
_STALE = object()


@functools.cache
def _register_signature() -> inspect.Signature:
    """The signature every ``register`` call is checked against: the contract's own."""
    import inspect

    from ._hookspecs import Register

    return inspect.signature(Register.__call__)


def _canonical(name: str) -> str:
    """``name`` as pip compares distribution names (PEP 503 normalisation)."""
    return _SEPARATORS.sub("-", name).lower()


_SEPARATORS = re.compile(r"[-_.]+")


def _names(value: str) -> set[str]:
    """The comma-separated names of an environment variable, in :func:`_canonical` form."""
    return {_canonical(item.strip()) for item in value.split(",") if item.strip()}


def _flag(value: str) -> bool:
    return value.strip().lower() in ("1", "true", "yes", "on")


@attrs.frozen
class _Candidate:
    """A plugin object ready to register, with what is known about it."""

    info: PluginInfo
    obj: object


def _release_processors(release: str) -> tuple[str, str]:
    """The processors of a release named ``"module:attribute"``, as strings imported when
    the model is first used."""
    return f"{release}.input_processor", f"{release}.output_processor"


class _Recorder:
    """The ``register`` callback handed to one plugin's hook (a :class:`Register`).

    Its arguments are bound against :class:`Register`'s signature, so the protocol is
    the only statement of what a registration may pass.
    """

    def __init__(self, plugin: str) -> None:
        self.plugin = plugin
        self.specs: list[FormatterSpec] = []
        self.hints: list[Hint] = []

    def hint(self, patterns: Any, text: Any) -> None:
        """The ``hint`` callback (a :class:`RegisterHint`)."""
        if (
            isinstance(patterns, str)
            or not isinstance(patterns, (list, tuple, set, frozenset))
            or not all(isinstance(p, str) and p for p in patterns)
        ):
            raise TypeError(f"patterns must be a list of non-empty strings, got {quote(patterns)}")
        if not isinstance(text, str) or not text.strip():
            raise TypeError(f"text must be a non-empty string, got {quote(text)}")
        from ._plugin_records import Hint

        self.hints.append(Hint(tuple(patterns), text.strip(), self.plugin))

    def __call__(self, *args: Any, **kwargs: Any) -> None:
        from ._hookspecs import check_api_version

        bound = _register_signature().bind(self, *args, **kwargs)
        bound.apply_defaults()
        options = bound.arguments
        model_id = options["model_id"]
        if not isinstance(model_id, str) or not model_id.strip():
            raise TypeError(f"model_id must be a non-empty string, got {quote(model_id)}")
        lists: dict[str, tuple[str, ...]] = {}
        for label in ("aliases", "patterns"):
            items = options[label]
            if (
                isinstance(items, str)
                or not isinstance(items, (list, tuple, set, frozenset))
                or not all(isinstance(i, str) and i for i in items)
            ):
                raise TypeError(f"{label} must be a list of non-empty strings, got {quote(items)}")
            lists[label] = tuple(items)
        release = options["release"]
        if release is not None:
            from .release import Release

            if options["input_processor"] is not None:
                raise TypeError(
                    "give either release= or input_processor= (the release's renderer "
                    "renders its prompts), not both"
                )
            if isinstance(release, str) and ":" in release:
                # (imported when the model is first used: "module:RELEASE.input_processor")
                input_processor, output_processor = _release_processors(release)
                options["input_processor"] = input_processor
                if options["output_processor"] is None:
                    options["output_processor"] = output_processor
            elif isinstance(release, Release):
                options["input_processor"] = release.input_processor
                if options["output_processor"] is None:
                    options["output_processor"] = release.output_processor
            else:
                raise TypeError(
                    "release must be a granite_formatters.Release or a 'module:attribute' "
                    f"string naming one, got {quote(release)}"
                )
        for label in ("input_processor", "output_processor"):
            source = options[label]
            if source is None:
                raise TypeError(
                    f"{label} is missing: give release= or both input_processor= and "
                    "output_processor="
                )
            if not (isinstance(source, str) and ":" in source) and not callable(source):
                raise TypeError(
                    f"{label} must be a class, a factory or a 'module:attribute' string, "
                    f"got {quote(source)}"
                )
        demo = options["demo"]
        if demo is not None:
            from ._plugin_records import Demo

            if not isinstance(demo, Demo):
                raise TypeError(
                    f"demo must be a granite_formatters.records.Demo, got {quote(demo)}"
                )
        problem = check_api_version(options["requires_api"])
        if problem is not None:
            raise RuntimeError(problem)
        self.specs.append(
            FormatterSpec(
                model_id=model_id,
                input_processor=options["input_processor"],
                output_processor=options["output_processor"],
                plugin=self.plugin,
                aliases=lists["aliases"],
                patterns=lists["patterns"],
                description=str(options["description"]),
                demo=demo,
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
        self._programmatic: dict[str, tuple[object, bool]] = {}
        self._registry: ModelRegistry | None = None
        # The bundled model catalogue (by id, then by normalised id), read on first use,
        # and the formatters served from it (model id -> registration, formatter).
        self._catalog: tuple[dict[str, CatalogEntry], dict[str, CatalogEntry]] | None = None
        self._served: dict[str, tuple[FormatterSpec, Formatter[AssistantMessage]]] = {}
        # The formatter of each name looked up (names that resolve), valid while what
        # decides the answer stays the same: the registry, or before it is built, the
        # selection variables (see :meth:`formatter`). Replaced whole, never emptied in
        # place, so a lookup racing a change stores into the memo it started from.
        self._memo: tuple[object, dict[str, Formatter[AssistantMessage]]] = (None, {})

    # -- configuration ------------------------------------------------------------

    @property
    def environ(self) -> Mapping[str, str]:
        return os.environ if self._environ is None else self._environ

    @property
    def strict(self) -> bool:
        return _flag(self.environ.get(ENV_STRICT, ""))

    def register_plugin(self, obj: object, *, name: str, override: bool = False) -> None:
        """Add a plugin object (a module, class or instance with hook implementations).

        ``override=True`` lets it take model names from the bundled plugins (each
        takeover is still a recorded warning); without it, the bundled names stay.
        """
        if not isinstance(name, str) or not name:
            raise TypeError("register_plugin() needs a non-empty name")
        with self._lock:
            self._programmatic[name] = (obj, bool(override))
            self._registry = None
            self._forget()

    def unregister_plugin(self, name: str) -> None:
        """Remove a plugin added with :meth:`register_plugin`; unknown names are an error."""
        with self._lock:
            if name not in self._programmatic:
                raise LookupError(
                    f"no plugin named {quote(name)} was registered with register_plugin()"
                )
            del self._programmatic[name]
            self._registry = None
            self._forget()

    def reset(self) -> None:
        """Forget loaded entry points and programmatic plugins (for tests)."""
        with self._lock:
            self._loaded = None
            self._load_errors = []
            self._programmatic.clear()
            self._registry = None
            self._catalog = None
            self._served.clear()
            self._forget()

    def _forget(self) -> None:
        """Drop the formatters looked up by name (the answer for a name may change)."""
        self._memo = (_STALE, {})

    # -- lookup -------------------------------------------------------------------

    def formatter(self, name: str) -> Formatter[AssistantMessage]:
        """The formatter for ``name``, as :meth:`ModelRegistry.get_formatter` gives it.

        Until the registry is built, a model id of the bundled model catalogue (or a
        name that normalises to one) is served from the catalogue: its release module
        is imported, no plugin module and no other plugin (the registry, built later,
        keeps that formatter). Whatever could give the name to another plugin (a
        programmatic plugin, the selection and override variables) or must report
        every plugin's problems first (strict mode) sends the lookup to the registry.

        The answer for each name that resolves is kept until something that decides it
        changes: a plugin registered or unregistered, :meth:`reset`, the registry built
        or, before it is built, one of the selection variables.
        """
        named = isinstance(name, str)  # (anything else: the registry's error)
        if not named:
            return self.registry().get_formatter(name)
        registry = self._registry
        state = registry if registry is not None else self._selection()
        key, memo = self._memo
        if key is not state and key != state:
            memo = {}
            self._memo = (state, memo)
        found = memo.get(name)
        if found is None:
            found = self._lookup(name, registry)
            if len(memo) >= _MAX_MEMO:  # (client-given names: bounded)
                memo.clear()
            memo[name] = found
        return found

    def _lookup(self, name: str, registry: ModelRegistry | None) -> Formatter[AssistantMessage]:
        if registry is None and self._catalog_applies():
            entry = self._catalog_entry(name)
            if entry is not None:
                return self._served_formatter(entry)
        return self.registry().get_formatter(name)

    def _selection(self) -> tuple[str | None, ...]:
        """The selection variables' values (what the catalogue path and a registry
        built now depend on, besides the plugins registered)."""
        get = self.environ.get
        return (get(ENV_LOAD), get(ENV_DISABLE), get(ENV_OVERRIDE), get(ENV_STRICT))

    def _catalog_applies(self) -> bool:
        environ = self.environ
        return (
            self._use_entry_points
            and not self._programmatic
            and ENV_LOAD not in environ
            and not environ.get(ENV_DISABLE, "").strip()
            and not environ.get(ENV_OVERRIDE, "").strip()
            and not self.strict
        )

    def _catalog_entry(self, name: str) -> CatalogEntry | None:
        """The catalogue's model that ``name`` resolves to: its id, or (as the registry
        resolves) the first model, in plugin precedence order, whose id it normalises to."""
        catalog = self._catalog
        if catalog is None:
            with self._lock:
                if self._catalog is None:
                    by_id = read_catalog(BUNDLED_PLUGINS)
                    by_normalized: dict[str, CatalogEntry] = {}
                    for entry in sorted(by_id.values(), key=lambda e: e.distribution):
                        by_normalized.setdefault(normalize_model_name(entry.model_id), entry)
                    self._catalog = (by_id, by_normalized)
                catalog = self._catalog
        by_id, by_normalized = catalog
        return by_id.get(name) or by_normalized.get(normalize_model_name(name))

    def _served_formatter(self, entry: CatalogEntry) -> Formatter[AssistantMessage]:
        with self._lock:
            served = self._served.get(entry.model_id)
            if served is None:
                plugin = PluginInfo(
                    name=entry.distribution,
                    version=entry.version,
                    module=entry.module,
                    bundled=True,
                    distribution=entry.distribution,
                )
                spec = FormatterSpec(
                    entry.model_id, *_release_processors(entry.release), plugin=plugin.name
                )
                served = (spec, new_formatter(spec, plugin))
                self._served[entry.model_id] = served
            return served[1]

    # -- loading ------------------------------------------------------------------

    def _fail(self, error: PluginLoadError, cause: BaseException | None = None) -> None:
        if self.strict:
            raise error from cause
        self._load_errors.append(error)

    def _load_entry_points(self) -> list[_Candidate]:
        import importlib.metadata

        from ._hookspecs import PROJECT_NAME

        environ = self.environ
        allow = None if ENV_LOAD not in environ else _names(environ[ENV_LOAD])
        deny = _names(environ.get(ENV_DISABLE, ""))
        override = _names(environ.get(ENV_OVERRIDE, ""))
        grouped: dict[str, dict[str, importlib.metadata.EntryPoint]] = {}
        for ep in importlib.metadata.entry_points(group=PROJECT_NAME):
            dist = ep.dist.name if ep.dist is not None else "?"
            grouped.setdefault(ep.name, {}).setdefault(dist, ep)
        candidates: list[_Candidate] = []
        seen: set[str] = set()
        for name in sorted(grouped):
            by_dist = grouped[name]
            seen.update(map(_canonical, by_dist))
            if name not in BUNDLED_PLUGINS or name in by_dist:
                seen.add(_canonical(name))

            def selected(dist: str, name: str = name) -> bool:
                keys = {_canonical(name), _canonical(dist)}
                return not (keys & deny) and (allow is None or bool(keys & allow))

            if name in BUNDLED_PLUGINS:
                # An impostor is selected by its own distribution name only: an
                # allowlist that names the bundled plugin means the bundled one.
                for dist, ep in sorted(by_dist.items()):
                    if (
                        dist != name
                        and selected(dist)
                        and (allow is None or _canonical(dist) in allow)
                    ):
                        self._fail(
                            PluginLoadError(
                                dist,
                                _version(ep),
                                f"declares the entry point {name!r}, which belongs to the "
                                f"bundled plugin distribution {name}; it was not loaded. "
                                "Each plugin must name its entry point after its own "
                                "distribution.",
                            )
                        )
                by_dist = {d: e for d, e in by_dist.items() if d == name}
            ordered = sorted((d, e) for d, e in by_dist.items() if selected(d))
            if not ordered:
                continue
            dist_name, ep = ordered[0]
            if len(ordered) > 1:
                others = ", ".join(f"{d} {_version(e) or '?'}" for d, e in ordered[1:])
                for _other, other_ep in ordered[1:]:
                    self._fail(
                        PluginLoadError(
                            name,
                            _version(other_ep),
                            f"entry point name {name!r} is used by distributions {dist_name} "
                            f"and {others}; only {dist_name} was loaded. Each plugin must "
                            "name its entry point after its own distribution.",
                        )
                    )
            version = _version(ep)
            try:
                obj = ep.load()
            except KeyboardInterrupt:
                raise
            except BaseException as exc:  # noqa: BLE001 - SystemExit at import too
                problem = f"import failed: {exc!r}{moved_hint(exc)}"
                self._fail(PluginLoadError(name, version, problem), exc)
                continue
            bundled = dist_name in BUNDLED_PLUGINS
            candidates.append(
                _Candidate(
                    PluginInfo(
                        name=name,
                        version=version,
                        source="entry point",
                        module=ep.value,
                        bundled=bundled,
                        distribution=dist_name,
                        override=not bundled
                        and bool({_canonical(name), _canonical(dist_name)} & override),
                    ),
                    obj,
                )
            )
        if allow is not None:
            for missing in sorted(allow - seen):
                self._fail(PluginLoadError(missing, None, f"named in {ENV_LOAD} but not installed"))
        return candidates

    def _candidates(self) -> list[_Candidate]:
        if self._loaded is None:
            self._load_errors = []
            self._loaded = self._load_entry_points() if self._use_entry_points else []
        allowed = _names(self.environ.get(ENV_OVERRIDE, ""))
        programmatic = [
            _Candidate(
                PluginInfo(
                    name=name,
                    version=getattr(obj, "__version__", None),
                    source="programmatic",
                    module=getattr(obj, "__name__", type(obj).__name__),
                    override=override or _canonical(name) in allowed,
                ),
                obj,
            )
            for name, (obj, override) in self._programmatic.items()
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
        import pluggy

        import granite_formatters._hookspecs as hookspecs

        candidates = self._candidates()
        pm = pluggy.PluginManager(hookspecs.PROJECT_NAME)
        pm.add_hookspecs(hookspecs)
        infos: list[PluginInfo] = []
        specs: list[FormatterSpec] = []
        hints: list[Hint] = []
        build_errors: list[PluginLoadError] = []

        def fail(info: PluginInfo, problem: str, cause: BaseException | None = None) -> PluginInfo:
            error = PluginLoadError(info.name, info.version, problem)
            if self.strict:
                raise error from cause
            build_errors.append(error)
            return attrs.evolve(info, errors=(*info.errors, problem))

        for candidate in candidates:
            info, obj = candidate.info, candidate.obj
            try:
                pm.register(obj, name=info.name)
            except pluggy.PluginValidationError as exc:
                infos.append(fail(info, f"invalid hook implementation: {exc}", exc))
                continue
            except ValueError as exc:
                infos.append(fail(info, f"could not be registered: {exc}", exc))
                continue
            except KeyboardInterrupt:
                raise
            except BaseException as exc:  # noqa: BLE001 - isolate any plugin failure
                infos.append(fail(info, f"could not be registered: {exc!r}", exc))
                continue
            callers = pm.get_hookcallers(obj) or []
            info = attrs.evolve(info, hooks=tuple(sorted(c.name for c in callers if c.has_spec())))
            try:
                pm.check_pending()
            except pluggy.PluginValidationError as exc:
                pm.unregister(obj)
                for caller in callers:
                    if not caller.has_spec():
                        info = fail(
                            info,
                            f"implements unknown hook {caller.name!r} (misspelt?); "
                            f"known hooks: {', '.join(_hook_names(pm))}",
                            exc,
                        )
                infos.append(info)
                continue
            recorder = _Recorder(info.name)
            register: Register = recorder
            hint: RegisterHint = recorder.hint
            for impl in pm.hook.register_formatters.get_hookimpls():
                if impl.plugin is not obj:
                    continue
                available = {"register": register, "hint": hint}
                try:
                    impl.function(**{arg: available[arg] for arg in impl.argnames})
                except KeyboardInterrupt:
                    raise
                except BaseException as exc:  # noqa: BLE001 - isolate any plugin failure
                    recorder.specs.clear()
                    recorder.hints.clear()
                    info = fail(info, f"register_formatters hook raised {exc!r}", exc)
            specs.extend(recorder.specs)
            hints.extend(recorder.hints)
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
        registry = ModelRegistry.build(specs, infos, load_errors=load_errors, hints=hints)
        registry.adopt(self._served)
        for conflict in registry.conflicts:
            message = f"granite-formatters: registration conflict: {conflict.describe()}"
            if self.strict and not conflict.override:
                raise PluginLoadError(conflict.challenger, None, message)
            warnings.warn(message, PluginWarning, stacklevel=4)
        for error in load_errors:
            warnings.warn(f"granite-formatters: {error}", PluginWarning, stacklevel=4)
        return registry

    def plugin_errors(self) -> list[PluginLoadError]:
        """Problems met while loading plugins, then every attempted takeover of a name
        (empty when all is well)."""
        registry = self.registry()
        conflict_errors = [
            PluginLoadError(c.challenger, None, c.describe()) for c in registry.conflicts
        ]
        return list(registry.load_errors) + conflict_errors


def _version(ep: importlib.metadata.EntryPoint) -> str | None:
    return ep.dist.version if ep.dist is not None else None


def _hook_names(pm: pluggy.PluginManager) -> list[str]:
    """The hooks the contract specifies (as pluggy reads :mod:`.hookspecs`)."""
    import granite_formatters._hookspecs as hookspecs

    return [name for name in dir(hookspecs) if pm.parse_hookspec_opts(hookspecs, name)]


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
