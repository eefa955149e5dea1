"""The model-name registry: which plugin formats which model, and how a name resolves.

A :class:`ModelRegistry` is built from the registrations that plugins make in their
``register_formatters`` hook. Resolution of a name tries, in order:

1. ``id``: the exact model id;
2. ``alias``: an exact alias;
3. ``normalized``: the normalised name (see :mod:`granite_formatters.names`) equal to
   the normalised form of an id or alias;
4. ``pattern``: plugin name patterns (shell-style globs over the normalised name); the
   most specific pattern (most literal characters) wins, and equally specific matches
   for different models are an :class:`~granite_formatters.errors.AmbiguousModelError`.

Anything else is an :class:`~granite_formatters.errors.UnknownModelError` with close
matches. A model id or alias claimed twice is a recorded conflict with a deterministic
winner (bundled plugins before third-party ones, then by plugin name), never a crash.
"""

from __future__ import annotations

import difflib
import fnmatch
import functools
import importlib
import re
import threading
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Literal, Protocol, TypeVar, Union

import attrs

from .errors import AmbiguousModelError, PluginLoadError, UnknownModelError
from .hookspecs import PLUGIN_API_VERSION
from .names import normalize_model_name
from .processors import Formatter, InputProcessor, OutputProcessor

__all__ = [
    "Conflict",
    "InputProcessor",
    "OutputProcessor",
    "FormatterSpec",
    "ModelInfo",
    "ModelRegistry",
    "PluginInfo",
    "ProcessorSource",
    "Register",
    "Resolution",
]

P = TypeVar("P", InputProcessor, OutputProcessor)

#: A processor as a plugin registers it: a class or zero-argument factory, or a
#: ``"module:attribute"`` string naming one (imported on first use).
ProcessorSource = Union[str, Callable[[], P]]  # noqa: UP007 - generic alias

Rule = Literal["id", "alias", "normalized", "pattern"]


class Register(Protocol):
    """The ``register`` callback that the ``register_formatters`` hook receives."""

    def __call__(
        self,
        model_id: str,
        *,
        input_processor: ProcessorSource[InputProcessor],
        output_processor: ProcessorSource[OutputProcessor],
        aliases: Iterable[str] = (),
        patterns: Iterable[str] = (),
        description: str = "",
        requires_api: tuple[int, int] | None = None,
    ) -> None: ...


@attrs.frozen
class PluginInfo:
    """A plugin as the host sees it."""

    name: str
    version: str | None = None
    source: Literal["entry point", "programmatic"] = "entry point"
    module: str | None = None
    bundled: bool = False
    models: tuple[str, ...] = ()
    hooks: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        """``name version``, for messages."""
        return f"{self.name} {self.version}" if self.version else self.name


@attrs.frozen
class FormatterSpec:
    """One registration made by a plugin."""

    model_id: str
    input_processor: ProcessorSource[InputProcessor]
    output_processor: ProcessorSource[OutputProcessor]
    plugin: str
    aliases: tuple[str, ...] = ()
    patterns: tuple[str, ...] = ()
    description: str = ""


@attrs.frozen
class ModelInfo:
    """A registered model: its id, the names that reach it, and its plugin."""

    model_id: str
    aliases: tuple[str, ...]
    patterns: tuple[str, ...]
    description: str
    plugin: PluginInfo


@attrs.frozen
class Resolution:
    """How a name was resolved: the model, the rule that matched and what it matched."""

    query: str
    model: ModelInfo
    rule: Rule
    normalized: str
    matched: str


@attrs.frozen
class Conflict:
    """A model id or alias claimed by two registrations, and who won."""

    name: str
    winner: str
    loser: str
    winner_plugin: str
    loser_plugin: str

    def describe(self) -> str:
        return (
            f"{self.name!r} is claimed by plugin {self.winner_plugin} (model {self.winner}) "
            f"and plugin {self.loser_plugin} (model {self.loser}); {self.winner_plugin} wins"
        )


def check_api_version(required: tuple[int, int] | None) -> str | None:
    """Return a problem description when the core cannot satisfy ``required``."""
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


def _pattern_specificity(pattern: str) -> int:
    return sum(1 for ch in pattern if ch not in "*?[]")


def _instantiate(source: object, kind: type, spec: FormatterSpec) -> Any:
    target: object = source
    if isinstance(source, str):
        module_name, _, attribute = source.partition(":")
        try:
            target = importlib.import_module(module_name)
            for part in attribute.split(".") if attribute else ():
                target = getattr(target, part)
        except Exception as exc:
            raise PluginLoadError(
                spec.plugin, None, f"cannot import {source!r} for model {spec.model_id}: {exc!r}"
            ) from exc
    if isinstance(target, kind):
        return target
    if not callable(target):
        raise PluginLoadError(
            spec.plugin, None, f"{source!r} for model {spec.model_id} is not an {kind.__name__}"
        )
    try:
        instance = target()
    except Exception as exc:
        raise PluginLoadError(
            spec.plugin, None, f"creating the processor for model {spec.model_id} failed: {exc!r}"
        ) from exc
    if not isinstance(instance, kind):
        raise PluginLoadError(
            spec.plugin,
            None,
            f"{source!r} for model {spec.model_id} produced {type(instance).__name__}, "
            f"not an {kind.__name__}",
        )
    return instance


class ModelRegistry:
    """An immutable index over the registrations of a set of plugins.

    Build one with :meth:`build`; :func:`granite_formatters.get_formatter` and friends
    use the process-wide registry that the plugin host keeps.
    """

    def __init__(
        self,
        specs: Sequence[FormatterSpec],
        plugins: Sequence[PluginInfo],
        *,
        conflicts: Sequence[Conflict] = (),
        load_errors: Sequence[PluginLoadError] = (),
    ) -> None:
        self.plugins: tuple[PluginInfo, ...] = tuple(plugins)
        self.conflicts: tuple[Conflict, ...] = tuple(conflicts)
        self.load_errors: tuple[PluginLoadError, ...] = tuple(load_errors)
        plugin_by_name = {p.name: p for p in self.plugins}
        self._specs: dict[str, FormatterSpec] = {}
        self._models: dict[str, ModelInfo] = {}
        self._aliases: dict[str, str] = {}
        self._normalized: dict[str, tuple[str, str]] = {}
        self._patterns: list[tuple[int, str, re.Pattern[str], str]] = []
        self._formatters: dict[str, Formatter] = {}
        self._lock = threading.Lock()
        for spec in specs:
            self._specs[spec.model_id] = spec
            self._models[spec.model_id] = ModelInfo(
                model_id=spec.model_id,
                aliases=spec.aliases,
                patterns=spec.patterns,
                description=spec.description,
                plugin=plugin_by_name.get(spec.plugin, PluginInfo(name=spec.plugin)),
            )
        for spec in specs:
            for alias in spec.aliases:
                self._aliases.setdefault(alias, spec.model_id)
        for spec in specs:
            for name in (spec.model_id, *spec.aliases):
                self._normalized.setdefault(normalize_model_name(name), (spec.model_id, name))
            for pattern in spec.patterns:
                regex = re.compile(fnmatch.translate(normalize_model_name(pattern)))
                self._patterns.append(
                    (_pattern_specificity(pattern), pattern, regex, spec.model_id)
                )
        self._patterns.sort(key=lambda item: -item[0])

    # -- construction ---------------------------------------------------------------

    @classmethod
    def build(
        cls,
        registrations: Iterable[FormatterSpec],
        plugins: Sequence[PluginInfo],
        *,
        load_errors: Sequence[PluginLoadError] = (),
    ) -> ModelRegistry:
        """Index ``registrations``, resolving claims on the same name deterministically.

        ``registrations`` must come in precedence order (bundled plugins first). A
        later claim on a model id or alias that is already taken is dropped and
        recorded as a :class:`Conflict`.
        """
        ordered = list(registrations)
        ids: dict[str, FormatterSpec] = {}
        conflicts: list[Conflict] = []
        for spec in ordered:  # ids first: an id always beats another model's alias
            first = ids.get(spec.model_id)
            if first is None:
                ids[spec.model_id] = spec
            elif first is not spec:
                conflicts.append(
                    Conflict(
                        spec.model_id, first.model_id, spec.model_id, first.plugin, spec.plugin
                    )
                )
        alias_owner: dict[str, FormatterSpec] = {}
        accepted: list[FormatterSpec] = []
        for spec in ordered:
            if ids.get(spec.model_id) is not spec:
                continue
            kept_aliases: list[str] = []
            for alias in spec.aliases:
                claimed = ids.get(alias) or alias_owner.get(alias)
                if claimed is not None and claimed.model_id != spec.model_id:
                    conflicts.append(
                        Conflict(
                            alias, claimed.model_id, spec.model_id, claimed.plugin, spec.plugin
                        )
                    )
                    continue
                alias_owner[alias] = spec
                if alias not in kept_aliases and alias != spec.model_id:
                    kept_aliases.append(alias)
            accepted.append(attrs.evolve(spec, aliases=tuple(kept_aliases)))
        by_plugin: dict[str, list[str]] = {}
        for spec in accepted:
            by_plugin.setdefault(spec.plugin, []).append(spec.model_id)
        lost: dict[str, list[str]] = {}
        for conflict in conflicts:
            lost.setdefault(conflict.loser_plugin, []).append(conflict.describe())
        infos = [
            attrs.evolve(
                p,
                models=tuple(by_plugin.get(p.name, ())),
                errors=p.errors + tuple(lost.get(p.name, ())),
            )
            for p in plugins
        ]
        return cls(accepted, infos, conflicts=conflicts, load_errors=load_errors)

    # -- queries --------------------------------------------------------------------

    def list_models(self) -> list[ModelInfo]:
        """Every registered model, sorted by id."""
        return [self._models[k] for k in sorted(self._models)]

    def list_plugins(self) -> list[PluginInfo]:
        """Every plugin, loaded or failed, in precedence order."""
        return list(self.plugins)

    def known_names(self) -> list[str]:
        """Every model id and alias."""
        return sorted({*self._models, *self._aliases})

    def resolve(self, name: str) -> Resolution:
        """Resolve ``name`` to a model, saying which rule matched.

        Raises :class:`UnknownModelError` or :class:`AmbiguousModelError`.
        """
        if not isinstance(name, str):
            raise UnknownModelError(repr(name), reason="A model name must be a string.")
        normalized = normalize_model_name(name)
        if name in self._models:
            return Resolution(name, self._models[name], "id", normalized, name)
        if name in self._aliases:
            return Resolution(name, self._models[self._aliases[name]], "alias", normalized, name)
        hit = self._normalized.get(normalized)
        if hit is not None:
            return Resolution(name, self._models[hit[0]], "normalized", normalized, hit[1])
        best: int | None = None
        candidates: dict[str, str] = {}
        for specificity, pattern, regex, model_id in self._patterns:
            if best is not None and specificity < best:
                break
            if regex.fullmatch(normalized):
                best = specificity
                candidates.setdefault(model_id, pattern)
        if len(candidates) == 1:
            model_id, pattern = next(iter(candidates.items()))
            return Resolution(name, self._models[model_id], "pattern", normalized, pattern)
        if candidates:
            raise AmbiguousModelError(
                name,
                [(m, self._models[m].plugin.name) for m in sorted(candidates)],
            )
        raise self._unknown(name, normalized)

    def _unknown(self, name: str, normalized: str) -> UnknownModelError:
        names = self.known_names()
        folded = {n.lower(): n for n in names}
        folded.update({k: v[1] for k, v in self._normalized.items()})
        close = difflib.get_close_matches(normalized, list(folded), n=3, cutoff=0.75)
        suggestions: list[str] = []
        for item in close:
            model_id = folded[item]
            model_id = self._aliases.get(model_id, model_id)
            if model_id not in suggestions:
                suggestions.append(model_id)
        failed = [str(error) for error in self.load_errors]
        return UnknownModelError(
            name,
            suggestions=suggestions,
            known_count=len(names),
            plugin_count=sum(1 for p in self.plugins if p.models),
            failed_plugins=failed,
        )

    def get_formatter(self, name: str) -> Formatter:
        """The formatter for ``name``, created once per model and reused.

        The input processor is created here; the output processor on first use, so a
        process that only formats never imports the output side.
        """
        model = self.resolve(name).model
        formatter = self._formatters.get(model.model_id)
        if formatter is not None:
            return formatter
        with self._lock:
            formatter = self._formatters.get(model.model_id)
            if formatter is None:
                spec = self._specs[model.model_id]
                input_processor: InputProcessor = _create(spec, InputProcessor, model.plugin)
                formatter = Formatter(
                    model.model_id,
                    input_processor,
                    functools.partial(_create, spec, OutputProcessor, model.plugin),
                    model.plugin,
                )
                self._formatters[model.model_id] = formatter
        return formatter


def _create(spec: FormatterSpec, kind: type, plugin: PluginInfo) -> Any:
    """Instantiate one of ``spec``'s processors; failures name the plugin and its version."""
    source = spec.input_processor if kind is InputProcessor else spec.output_processor
    try:
        return _instantiate(source, kind, spec)
    except PluginLoadError as exc:
        raise PluginLoadError(plugin.name, plugin.version, exc.problem) from exc
