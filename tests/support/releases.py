"""The table of bundled releases, read from the plugin folders.

Each bundled plugin folder (``plugins/<plugin>/``) declares, in the
``[tool.granite-formatters]`` table of its ``pyproject.toml``, what the tests need to
know of its releases: their golden set (``goldens``), how their template is handed a
request (``oracle``), the syntaxes and features their formats have (``features``, see
:data:`FEATURES`), and the releases it provides, each with its official template (a file
of ``shared/chat-templates/``) and one model name that resolves to it. Everything in the
repository that varies by release (tox cells, golden files, the template oracle,
benchmarks, fuzz targets, the ``release`` test fixture) is driven by :data:`RELEASES`,
so adding a bundled release is its folder plus its distribution's line in
``granite_formatters._plugins.BUNDLED_PLUGINS`` (see docs/plugins/adding-a-release.md).

Written with the standard library only (``tomllib``, or ``tomli`` before Python 3.11),
so that tooling outside the test suite (benchmarks, fuzz, the tox generator) can load it
by path.
"""

from __future__ import annotations

import functools
import importlib.util
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[2]
PLUGINS = REPO / "plugins"


#: How a model writes tool calls (each release has exactly one).
TOOL_CALL_SYNTAXES = frozenset(
    {
        "json-list-tool-calls",  # <|tool_call|>[{"name": ..., "arguments": ...}, ...]
        "json-tool-call-blocks",  # <tool_call>\n{"name": ..., "arguments": ...}\n</tool_call>
        "xml-tool-calls",  # <tool_call>\n<function=f>\n<parameter=p>\n...\n</tool_call>
    }
)
#: How a model writes its reasoning (at most one per release).
REASONING_SYNTAXES = frozenset(
    {
        "thought-phrases",  # Here is my thought process: ... Here is my response: ...
        "think-response-tags",  # <think>...</think><response>...</response>
        "opened-think",  # the prompt opens <think>; the answer follows </think>
    }
)
#: Every feature a release may declare in its ``features``.
FEATURES = (
    TOOL_CALL_SYNTAXES
    | REASONING_SYNTAXES
    | {
        "citations",  # answers cite documents, and the parser reads the citations
        "controls",  # the 3.x "controls" template option (citations, hallucinations, length...)
        "documents",  # the template renders the request's documents
        "dated-prompt",  # the default system prompt shows today's date
        "reasoning-effort",  # the template reads reasoning_effort / low_effort
    }
)


@dataclass(frozen=True)
class Release:
    """One bundled release, as its plugin folder declares it."""

    version: str
    """The release label, ``"3.2"``."""
    plugin: str
    """The plugin folder under ``plugins/`` (also the tox factor), ``"granite32"``."""
    goldens: str
    """The golden set (``tests/golden/<goldens>/``) whose cases apply to the release."""
    oracle: str
    """How the template is handed a request (a key of ``support.oracle.ORACLE_INPUTS``):
    ``"text-parts-joined"``, ``"content-parts"`` or ``"served"``."""
    template: str
    """The official template, a file name in ``shared/chat-templates/``."""
    model: str
    """A model name that resolves to this release."""
    features: frozenset[str] = frozenset()
    """What the release's format has, by syntax or feature (names of :data:`FEATURES`)."""

    def has(self, feature: str) -> bool:
        """Whether the release's format has ``feature`` (a name of :data:`FEATURES`)."""
        if feature not in FEATURES:
            raise KeyError(f"unknown feature {feature!r}; known: {sorted(FEATURES)}")
        return feature in self.features

    @property
    def tool_call_syntax(self) -> str:
        """The feature naming how the release's model writes tool calls."""
        (syntax,) = self.features & TOOL_CALL_SYNTAXES
        return syntax

    @property
    def reasoning_syntax(self) -> str | None:
        """The feature naming how the release's model writes its reasoning, if it does."""
        found = self.features & REASONING_SYNTAXES
        return next(iter(found)) if found else None

    @property
    def module(self) -> str:
        return "granite_formatters_" + self.plugin

    @property
    def distribution(self) -> str:
        return "granite-formatters-" + self.plugin

    @property
    def folder(self) -> Path:
        return PLUGINS / self.plugin

    @property
    def installed(self) -> bool:
        return importlib.util.find_spec(self.module) is not None


def _features(plugin: str, declared: list[str]) -> frozenset[str]:
    features = frozenset(declared)
    unknown = features - FEATURES
    if unknown:
        raise ValueError(f"plugins/{plugin}: unknown features {sorted(unknown)}")
    if len(features & TOOL_CALL_SYNTAXES) != 1:
        raise ValueError(f"plugins/{plugin}: declare one of {sorted(TOOL_CALL_SYNTAXES)}")
    if len(features & REASONING_SYNTAXES) > 1:
        raise ValueError(f"plugins/{plugin}: declare at most one of {sorted(REASONING_SYNTAXES)}")
    return features


def _read(folder: Path) -> list[Release]:
    with (folder / "pyproject.toml").open("rb") as file:
        data: dict[str, Any] = tomllib.load(file)
    table = data.get("tool", {}).get("granite-formatters")
    if table is None:
        return []
    return [
        Release(
            version=version,
            plugin=folder.name,
            goldens=table["goldens"],
            oracle=table["oracle"],
            template=entry["template"],
            model=entry["model"],
            features=_features(folder.name, table.get("features", [])),
        )
        for version, entry in table["releases"].items()
    ]


@functools.cache
def _load() -> tuple[Release, ...]:
    found: list[Release] = []
    for folder in sorted(PLUGINS.iterdir()):
        if (folder / "pyproject.toml").is_file():
            found.extend(_read(folder))
    return tuple(sorted(found, key=lambda r: tuple(int(p) for p in r.version.split("."))))


#: Every bundled release, oldest first.
RELEASES: tuple[Release, ...] = _load()

#: The bundled plugin folders (the tox factors), in release order.
PLUGIN_NAMES: tuple[str, ...] = tuple(dict.fromkeys(r.plugin for r in RELEASES))


def release(version: str) -> Release:
    """The bundled release labelled ``version``."""
    for candidate in RELEASES:
        if candidate.version == version:
            return candidate
    raise KeyError(version)


def with_feature(feature: str) -> tuple[Release, ...]:
    """The bundled releases whose format has ``feature``, oldest first."""
    return tuple(r for r in RELEASES if r.has(feature))


def without_feature(feature: str) -> tuple[Release, ...]:
    """The bundled releases whose format lacks ``feature``, oldest first."""
    return tuple(r for r in RELEASES if not r.has(feature))


def with_goldens(goldens: str) -> tuple[Release, ...]:
    """The bundled releases whose golden set is ``goldens``, oldest first."""
    return tuple(r for r in RELEASES if r.goldens == goldens)
