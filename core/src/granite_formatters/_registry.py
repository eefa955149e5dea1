"""The model-name registry: which plugin formats which model, and how a name resolves.

A :class:`ModelRegistry` indexes the registrations plugins make and resolves a name by
id, alias, normalised name, then pattern; claims on one name by two plugins get a
deterministic winner and a recorded :class:`~granite_formatters._plugin_records.Conflict`. The
rules are specified in ``docs/model-names.md`` and ``docs/security.md`` ("Plugin
precedence").
"""

from __future__ import annotations

import fnmatch
import functools
import importlib
import re
import threading
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import attrs

from ._errors import AmbiguousModelError, PluginLoadError, UnknownModelError, quote
from ._moved import moved_hint
from ._names import normalize_model_name
from ._processors import Formatter, InputProcessor, OutputProcessor
from ._records import FormatterSpec, ModelInfo, PluginInfo, Resolution

if TYPE_CHECKING:
    from ._plugin_records import Conflict, Hint
    from ._types import AssistantMessage

__all__ = ["REFUSED_VARIANTS", "ModelRegistry", "new_formatter"]

#: Variant words of Granite models that have no chat formatter here (base models,
#: Guardian, vision). A pattern never matches a name holding one of them; only an
#: explicit id or alias (or its normalised form) can reach such a model.
REFUSED_VARIANTS = frozenset({"base", "guardian", "vision"})

# Names longer than this get no close-match suggestions (difflib is quadratic).
_SUGGEST_LIMIT = 200

# Precedence tiers: a plugin allowed to override, then the bundled plugins, then the rest.
_OVERRIDE, _BUNDLED, _THIRD_PARTY = 0, 1, 2


def _tier(plugin: PluginInfo | None) -> int:
    if plugin is None:
        return _THIRD_PARTY
    if plugin.override:
        return _OVERRIDE
    return _BUNDLED if plugin.bundled else _THIRD_PARTY


def _refused(normalized: str) -> bool:
    tokens = normalized.split("-")
    return tokens[0] == "granite" and not REFUSED_VARIANTS.isdisjoint(tokens)


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
        except KeyboardInterrupt:
            raise
        except BaseException as exc:
            raise PluginLoadError(
                spec.plugin,
                None,
                f"cannot import {quote(source)} for model {spec.model_id}: {exc!r}"
                + moved_hint(exc),
            ) from exc
    if isinstance(target, kind):
        return target
    if not callable(target):
        raise PluginLoadError(
            spec.plugin,
            None,
            f"{quote(source)} for model {spec.model_id} is not an {kind.__name__}",
        )
    try:
        instance = target()
    except KeyboardInterrupt:
        raise
    except BaseException as exc:
        raise PluginLoadError(
            spec.plugin, None, f"creating the processor for model {spec.model_id} failed: {exc!r}"
        ) from exc
    if not isinstance(instance, kind):
        raise PluginLoadError(
            spec.plugin,
            None,
            f"{quote(source)} for model {spec.model_id} produced {type(instance).__name__}, "
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
        hints: Sequence[Hint] = (),
    ) -> None:
        self.plugins: tuple[PluginInfo, ...] = tuple(plugins)
        self.hints: tuple[Hint, ...] = tuple(hints)
        self.conflicts: tuple[Conflict, ...] = tuple(conflicts)
        self.load_errors: tuple[PluginLoadError, ...] = tuple(load_errors)
        plugin_by_name = {p.name: p for p in self.plugins}
        self._specs: dict[str, FormatterSpec] = {}
        self._models: dict[str, ModelInfo] = {}
        self._aliases: dict[str, str] = {}
        self._normalized: dict[str, tuple[str, str]] = {}
        self._patterns: list[tuple[int, int, str, re.Pattern[str], str]] = []
        self._formatters: dict[str, Formatter[AssistantMessage]] = {}
        self._lock = threading.Lock()
        for spec in specs:
            self._specs[spec.model_id] = spec
            self._models[spec.model_id] = ModelInfo(
                model_id=spec.model_id,
                aliases=spec.aliases,
                patterns=spec.patterns,
                description=spec.description,
                plugin=plugin_by_name.get(spec.plugin, PluginInfo(name=spec.plugin)),
                demo=spec.demo,
            )
        for spec in specs:
            if spec.demo is None:
                # Another size of the same release shows its plugin's demo.
                twin = next(
                    (
                        other
                        for other in specs
                        if other.demo is not None
                        and other.plugin == spec.plugin
                        and other.input_processor == spec.input_processor
                        and other.output_processor == spec.output_processor
                    ),
                    None,
                )
                if twin is not None:
                    self._models[spec.model_id] = attrs.evolve(
                        self._models[spec.model_id], demo=twin.demo
                    )
        for spec in specs:
            for alias in spec.aliases:
                self._aliases.setdefault(alias, spec.model_id)
        for spec in specs:
            for name in (spec.model_id, *spec.aliases):
                self._normalized.setdefault(normalize_model_name(name), (spec.model_id, name))
            tier = _tier(plugin_by_name.get(spec.plugin))
            for pattern in spec.patterns:
                regex = re.compile(fnmatch.translate(normalize_model_name(pattern)))
                self._patterns.append(
                    (_pattern_specificity(pattern), tier, pattern, regex, spec.model_id)
                )
        self._patterns.sort(key=lambda item: (-item[0], item[1]))

    # -- construction ---------------------------------------------------------------

    @classmethod
    def build(
        cls,
        registrations: Iterable[FormatterSpec],
        plugins: Sequence[PluginInfo],
        *,
        load_errors: Sequence[PluginLoadError] = (),
        hints: Sequence[Hint] = (),
    ) -> ModelRegistry:
        """Index ``registrations``, resolving claims on the same name deterministically.

        Precedence: plugins with an explicit override, then bundled plugins, then the
        others, each group in the order given. Within a group model ids are claimed
        before aliases. A claim on a name that a higher-precedence registration of
        another model already holds is dropped (a whole registration when it is its
        model id) and recorded as a :class:`Conflict`, whether the names are equal or
        only equal once normalised (the latter only between different plugins).
        """
        plugin_by_name = {p.name: p for p in plugins}
        tiers: dict[int, list[FormatterSpec]] = {}
        for spec in registrations:
            tiers.setdefault(_tier(plugin_by_name.get(spec.plugin)), []).append(spec)
        exact: dict[str, FormatterSpec] = {}
        normalized: dict[str, tuple[FormatterSpec, str]] = {}
        conflicts: list[Conflict] = []

        def blocked(spec: FormatterSpec, name: str) -> bool:
            """Whether ``name`` is already held for another model (recording the conflict)."""
            owner = exact.get(name)
            key: str | None = None
            shown = name
            if owner is None:
                key = normalize_model_name(name)
                seen = normalized.get(key)
                if seen is None or seen[0].plugin == spec.plugin:
                    return False
                owner = seen[0]
                if owner.model_id == spec.model_id:
                    return False
            elif owner is spec or (owner.model_id == spec.model_id and name != spec.model_id):
                return False
            override = (
                _tier(plugin_by_name.get(owner.plugin)) == _OVERRIDE
                and _tier(plugin_by_name.get(spec.plugin)) == _BUNDLED
            )
            # An override takes the names it states (and their normalised lookups); a
            # bundled name that only meets it once normalised stays, but is recorded.
            keep = override and key is not None
            if keep and key is not None:
                shown = normalized[key][1]
            from ._plugin_records import Conflict

            conflict = Conflict(
                shown,
                owner.model_id,
                spec.model_id,
                owner.plugin,
                spec.plugin,
                normalized=key,
                override=override,
            )
            if conflict not in conflicts:
                conflicts.append(conflict)
            return not keep

        def claim(spec: FormatterSpec, name: str) -> None:
            exact.setdefault(name, spec)
            normalized.setdefault(normalize_model_name(name), (spec, name))

        accepted: list[FormatterSpec] = []
        for tier in sorted(tiers):
            ids_taken: list[FormatterSpec] = []
            for spec in tiers[tier]:
                if blocked(spec, spec.model_id):
                    continue
                claim(spec, spec.model_id)
                ids_taken.append(spec)
            for spec in ids_taken:
                kept_aliases: list[str] = []
                for alias in spec.aliases:
                    if alias == spec.model_id or alias in kept_aliases:
                        continue
                    if blocked(spec, alias):
                        continue
                    claim(spec, alias)
                    kept_aliases.append(alias)
                accepted.append(attrs.evolve(spec, aliases=tuple(kept_aliases)))
        by_plugin: dict[str, list[str]] = {}
        for spec in accepted:
            by_plugin.setdefault(spec.plugin, []).append(spec.model_id)
        lost: dict[str, list[str]] = {}
        for conflict in conflicts:
            lost.setdefault(conflict.challenger, []).append(conflict.describe())
        infos = [
            attrs.evolve(
                p,
                models=tuple(by_plugin.get(p.name, ())),
                errors=p.errors + tuple(lost.get(p.name, ())),
            )
            for p in plugins
        ]
        return cls(accepted, infos, conflicts=conflicts, load_errors=load_errors, hints=hints)

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
            raise UnknownModelError(name, reason="A model name must be a string.")
        normalized = normalize_model_name(name)
        if name in self._models:
            return Resolution(name, self._models[name], "id", normalized, name)
        if name in self._aliases:
            return Resolution(name, self._models[self._aliases[name]], "alias", normalized, name)
        hit = self._normalized.get(normalized)
        if hit is not None:
            return Resolution(name, self._models[hit[0]], "normalized", normalized, hit[1])
        if not _refused(normalized):
            best: tuple[int, int] | None = None
            candidates: dict[str, str] = {}
            for specificity, tier, pattern, regex, model_id in self._patterns:
                if best is not None and (specificity, tier) != best:
                    break
                if regex.fullmatch(normalized):
                    best = (specificity, tier)
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
        import difflib  # (only for the error: a lookup that succeeds never loads it)

        names = self.known_names()
        folded = {n.lower(): n for n in names}
        folded.update({k: v[1] for k, v in self._normalized.items()})
        close = (
            difflib.get_close_matches(normalized, list(folded), n=3, cutoff=0.75)
            if len(normalized) <= _SUGGEST_LIMIT
            else []
        )
        suggestions: list[str] = []
        for item in close:
            model_id = folded[item]
            model_id = self._aliases.get(model_id, model_id)
            if model_id not in suggestions:
                suggestions.append(model_id)
        failed = [str(error) for error in self.load_errors]
        reason = None
        hint = None
        if _refused(normalized):
            reason = (
                "Granite base, Guardian and vision models have no chat formatter here; "
                "only a plugin that names such a model explicitly can provide one."
            )
        else:
            hint = self._hint(normalized)
        return UnknownModelError(
            name,
            reason=reason,
            suggestions=suggestions,
            known_count=len(names),
            plugin_count=sum(1 for p in self.plugins if p.models),
            failed_plugins=failed,
            hint=hint,
        )

    def _hint(self, normalized: str) -> str | None:
        """The text of the first plugin hint whose patterns match ``normalized``."""
        for hint in self.hints:
            for pattern in hint.patterns:
                if fnmatch.fnmatchcase(normalized, normalize_model_name(pattern)):
                    return hint.text
        return None

    def demo_model(self) -> ModelInfo | None:
        """The model ``granite-format demo`` shows by default: the first, in plugin
        precedence and registration order, whose registration declares a demo."""
        for spec in self._specs.values():
            if spec.demo is not None:
                return self._models[spec.model_id]
        return None

    def get_formatter(self, name: str) -> Formatter[AssistantMessage]:
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
                formatter = new_formatter(self._specs[model.model_id], model.plugin)
                self._formatters[model.model_id] = formatter
        return formatter

    def adopt(self, made: Mapping[str, tuple[FormatterSpec, Formatter[AssistantMessage]]]) -> None:
        """Keep formatters made before this registry (model id -> the registration it was
        made from, the formatter) for the models registered the same way, so that a
        model's formatter stays one object."""
        for model_id, (spec, formatter) in made.items():
            own = self._specs.get(model_id)
            if own is not None and (own.plugin, own.input_processor, own.output_processor) == (
                spec.plugin,
                spec.input_processor,
                spec.output_processor,
            ):
                self._formatters.setdefault(model_id, formatter)


def new_formatter(spec: FormatterSpec, plugin: PluginInfo) -> Formatter[AssistantMessage]:
    """A formatter for ``spec``: its input processor created now, its output processor
    on first use (so a process that only formats never imports the output side)."""
    input_processor: InputProcessor = _create(spec, InputProcessor, plugin)
    return Formatter(
        spec.model_id,
        input_processor,
        functools.partial(_create, spec, OutputProcessor, plugin),
        plugin,
    )


def _create(spec: FormatterSpec, kind: type, plugin: PluginInfo) -> Any:
    """Instantiate one of ``spec``'s processors; failures name the plugin and its version."""
    source = spec.input_processor if kind is InputProcessor else spec.output_processor
    try:
        return _instantiate(source, kind, spec)
    except PluginLoadError as exc:
        raise PluginLoadError(plugin.name, plugin.version, exc.problem) from exc
