"""Fixtures for the core tests: plugin hosts and fake installed distributions.

The toy processors and plugins are in ``support.toy_plugins``; they are re-exported here
because plugin sources in the tests name them as ``conftest:EchoInput`` and import them
with ``from conftest import EchoInput`` (and ``test_testing_kit.py`` still imports
``toy_plugin`` from here).
"""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from granite_formatters import _plugins as plugins
from granite_formatters._plugins import PluginHost

from support.toy_plugins import EchoInput as EchoInput
from support.toy_plugins import EchoOutput as EchoOutput
from support.toy_plugins import MakeDist
from support.toy_plugins import toy_plugin as toy_plugin


@pytest.fixture
def host() -> PluginHost:
    """A plugin host that ignores installed entry points."""
    return PluginHost(entry_points=False)


@pytest.fixture
def default_host(monkeypatch: pytest.MonkeyPatch) -> Iterator[PluginHost]:
    """Replace the process-wide host with one that loads no entry points."""
    fresh = PluginHost(environ={plugins.ENV_LOAD: ""})
    monkeypatch.setattr(plugins, "_default_host", fresh)
    yield fresh


@pytest.fixture
def make_dist(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[MakeDist]:
    """Create a real (unpacked) installed distribution with a granite_formatters entry point.

    ``make_dist(dist_name, source, ep_name=None, version="1.0")`` writes a module and a
    ``.dist-info`` folder on a fresh ``sys.path`` entry, exactly what pip would leave.
    Returns the module name.
    """
    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))
    made: list[str] = []

    def make(dist_name: str, source: str, ep_name: str | None = None, version: str = "1.0") -> str:
        module = dist_name.replace("-", "_") + "_mod"
        (site / f"{module}.py").write_text(textwrap.dedent(source), encoding="utf-8")
        info = site / f"{dist_name.replace('-', '_')}-{version}.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: {dist_name}\nVersion: {version}\n", encoding="utf-8"
        )
        (info / "entry_points.txt").write_text(
            f"[granite_formatters]\n{ep_name or dist_name} = {module}\n", encoding="utf-8"
        )
        made.append(module)
        return module

    yield make
    for module in made:
        sys.modules.pop(module, None)
