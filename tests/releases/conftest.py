"""The release tests: each test runs once per bundled release it applies to.

Fixtures and collection rules (additive: modules of other branches may rely on them):

- ``release`` (a :class:`support.releases.Release`): a test that asks for it runs once
  per release of :data:`support.releases.RELEASES`, or of the releases the module applies
  to when it sets ``APPLIES_TO``: a feature (``APPLIES_TO = "citations"``: the releases
  whose plugin declares it, see :data:`support.releases.FEATURES`), a tuple of features
  (releases with any of them), or a predicate on a :class:`~support.releases.Release`
  (for a module whose data covers some releases). A release whose plugin is not installed
  is SKIPPED with the reason, never silently passed.
- ``golden_case`` (a ``GoldenCase``) or ``golden_name`` (its name): a test that asks for
  either runs once per (release, golden case of that release), from
  ``tests/golden/<release.goldens>/`` (see :mod:`support.golden`).
- A test that parametrizes ``release`` itself, or ``model`` with a release's model name, is
  SKIPPED with the reason where that release's plugin is not installed.
- A module named ``test_<plugin>_<topic>.py`` (``test_granite4_<topic>.py``) is about one
  plugin; it is SKIPPED as a whole, with the reason, when that plugin is not installed.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from granite_formatters.testing import GoldenCase

from support import golden
from support.per_release import not_installed
from support.releases import PLUGIN_NAMES, RELEASES, Release, with_feature


def releases_for(module: Any) -> tuple[Release, ...]:
    """The releases the tests of ``module`` run for (see ``APPLIES_TO`` above)."""
    applies_to = getattr(module, "APPLIES_TO", None)
    if applies_to is None:
        return RELEASES
    if isinstance(applies_to, str):
        return with_feature(applies_to)
    if isinstance(applies_to, tuple):
        return tuple(r for r in RELEASES if any(r.has(feature) for feature in applies_to))
    return tuple(r for r in RELEASES if applies_to(r))


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    # A test class with its own generator (the testing kit's contract classes) is left to it.
    if metafunc.cls is not None and hasattr(metafunc.cls, "pytest_generate_tests"):
        return
    # A name the test parametrizes itself, or a fixture its module defines, is left alone.
    explicit = {
        name.strip()
        for marker in metafunc.definition.iter_markers("parametrize")
        for name in (
            marker.args[0].split(",") if isinstance(marker.args[0], str) else marker.args[0]
        )
    }
    names = [
        name
        for name in metafunc.fixturenames
        if name not in explicit and not hasattr(metafunc.module, name)
    ]
    if "release" not in names and "golden_case" not in names and "golden_name" not in names:
        return
    releases = releases_for(metafunc.module)
    case_argument = next((n for n in ("golden_case", "golden_name") if n in names), None)
    if case_argument is None:
        metafunc.parametrize("release", releases, indirect=True, ids=[r.version for r in releases])
        return
    pairs = [(r, name) for r in releases for name in golden.case_names(r)]
    metafunc.parametrize(
        ("release", case_argument),
        pairs,
        indirect=True,
        ids=[f"{r.version}-{name}" for r, name in pairs],
    )


@pytest.fixture(scope="module")
def release(request: pytest.FixtureRequest) -> Release:
    """The release under test; skips (with the reason) when its plugin is not installed."""
    chosen: Release = request.param
    if not chosen.installed:
        pytest.skip(not_installed(chosen))
    return chosen


@pytest.fixture
def golden_name(request: pytest.FixtureRequest, release: Release) -> str:
    return str(request.param)


@pytest.fixture
def golden_case(request: pytest.FixtureRequest, release: Release) -> GoldenCase:
    (case,) = [c for c in golden.release_cases(release) if c.name == request.param]
    return case


def pytest_runtest_setup(item: pytest.Item) -> None:
    # A test that parametrizes ``release`` itself (or ``model`` with a bundled release's
    # model name) is skipped, with the reason, where that release's plugin is absent.
    callspec = getattr(item, "callspec", None)
    if callspec is None:
        return
    chosen = callspec.params.get("release")
    if not isinstance(chosen, Release):
        model = callspec.params.get("model")
        chosen = next((r for r in RELEASES if r.model == model), None)
    if chosen is not None and not chosen.installed:
        pytest.skip(not_installed(chosen))


class _PluginModule(pytest.Module):
    """A module about one plugin: skipped, with the reason, when the plugin is absent."""

    missing: Release

    def collect(self) -> Iterator[pytest.Item | pytest.Collector]:
        yield from ()  # nothing: the module is skipped first
        pytest.skip(not_installed(self.missing), allow_module_level=True)


def _plugin_of(path: Path) -> str | None:
    for plugin in PLUGIN_NAMES:
        if path.name.startswith(f"test_{plugin}_"):
            return plugin
    return None


def pytest_pycollect_makemodule(module_path: Path, parent: pytest.Collector) -> Any:
    plugin = _plugin_of(module_path)
    if plugin is None:
        return None
    release = next(r for r in RELEASES if r.plugin == plugin)
    if release.installed:
        return None
    module = _PluginModule.from_parent(parent, path=module_path)
    module.missing = release
    return module
