"""The table of bundled releases, read from the plugin folders.

Each bundled plugin folder (``plugins/<plugin>/``) declares, in the
``[tool.granite-formatters]`` table of its ``pyproject.toml``, its format family and the
releases it provides, each with its official template (a file of
``shared/chat-templates/``) and one model name that resolves to it. Everything in the
repository that varies by release (tox cells, golden files, the template oracle,
benchmarks, fuzz targets, the ``release`` test fixture) is driven by :data:`RELEASES`,
so adding a bundled release is its folder plus its distribution's line in
``granite_formatters.plugins.BUNDLED_PLUGINS`` (see docs/plugins/adding-a-release.md).

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


@dataclass(frozen=True)
class Release:
    """One bundled release, as its plugin folder declares it."""

    version: str
    """The release label, ``"3.2"``."""
    plugin: str
    """The plugin folder under ``plugins/`` (also the tox factor), ``"granite32"``."""
    family: str
    """The format family (``"granite3"`` or ``"granite4"``): which golden cases apply."""
    oracle: str
    """How the template is handed a request (a key of ``support.oracle.ORACLE_INPUTS``):
    ``"text-parts-joined"``, ``"content-parts"`` or ``"served"``."""
    template: str
    """The official template, a file name in ``shared/chat-templates/``."""
    model: str
    """A model name that resolves to this release."""

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
            family=table["family"],
            oracle=table["oracle"],
            template=entry["template"],
            model=entry["model"],
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


def of_family(family: str) -> tuple[Release, ...]:
    return tuple(r for r in RELEASES if r.family == family)
