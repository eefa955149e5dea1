"""The model catalogue the bundled plugin distributions declare with their entry points.

A bundled plugin lists, in the ``granite_formatters.models`` entry-point group of its
distribution, each model id it registers with the release that renders it
(``granite-4.1-8b = granite_formatters_granite4.releases:GRANITE41``). The lines are read
here straight from the installed distributions' ``entry_points.txt`` files, without
importing ``importlib.metadata`` (its email, zipfile and socket imports cost more than a
first prompt), so that a name the catalogue holds is resolved without importing a
plugin or discovering the others. See ``docs/plugins/hooks.md``, "The model catalogue".
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from typing import NamedTuple

__all__ = ["CATALOG_GROUP", "CatalogEntry", "read_catalog"]

#: The entry-point group of the catalogue (next to the plugins' ``granite_formatters``).
CATALOG_GROUP = "granite_formatters.models"

_PLUGIN_GROUP = "granite_formatters"
_SUFFIX = ".dist-info"


class CatalogEntry(NamedTuple):
    """One model of the catalogue: its id, its release and the distribution declaring it."""

    model_id: str
    release: str
    """The release as ``"module:attribute"``, imported when the model is first used."""
    distribution: str
    """The distribution name, in canonical form (``granite-formatters-granite4``)."""
    version: str
    module: str
    """The module of the distribution's plugin entry point."""


def _canonical(name: str) -> str:
    """A distribution name as pip compares it (PEP 503), for the names pip installs."""
    return "-".join(part for part in name.replace("_", "-").replace(".", "-").split("-") if part)


def _sections(text: str) -> dict[str, dict[str, str]]:
    """The ``[group]`` sections of an ``entry_points.txt`` file: name -> value."""
    sections: dict[str, dict[str, str]] = {}
    current: dict[str, str] | None = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line[0] == "[" and line[-1] == "]":
            current = sections.setdefault(line[1:-1].strip(), {})
        elif current is not None and "=" in line:
            name, _, value = line.partition("=")
            current.setdefault(name.strip(), value.strip())
    return sections


def read_catalog(
    distributions: Iterable[str], paths: Iterable[str] | None = None
) -> dict[str, CatalogEntry]:
    """The catalogues of ``distributions`` (canonical names) installed on ``paths``
    (``sys.path``), by model id.

    As the import system does, the first folder of ``paths`` holding a distribution is
    the one read. A distribution whose plugin entry point is not named after itself
    declares no catalogue here (the full discovery reports it).
    """
    wanted = set(distributions)
    found: dict[str, CatalogEntry] = {}
    for folder in sys.path if paths is None else paths:
        if not wanted:
            break
        try:
            names = os.listdir(folder or ".")
        except OSError:  # (not a folder: a zip file, a missing entry)
            continue
        for name in names:
            if not name.endswith(_SUFFIX):
                continue
            stem, _, version = name[: -len(_SUFFIX)].partition("-")
            distribution = _canonical(stem)
            if distribution not in wanted:
                continue
            wanted.discard(distribution)
            try:
                with open(
                    os.path.join(folder or ".", name, "entry_points.txt"), encoding="utf-8"
                ) as file:
                    sections = _sections(file.read())
            except OSError:
                continue
            module = sections.get(_PLUGIN_GROUP, {}).get(distribution)
            if module is None:
                continue
            for model_id, release in sections.get(CATALOG_GROUP, {}).items():
                found.setdefault(
                    model_id, CatalogEntry(model_id, release, distribution, version, module)
                )
    return found
