"""The bundled model catalogue: what it holds, what it answers, and when it stays out.

``get_formatter`` of a bundled model id (or a name normalised to one) is answered from
the catalogues the bundled distributions declare with their entry points, before any
plugin is discovered (docs/plugins/hooks.md, "The model catalogue"). These tests check
that each catalogue lists what its plugin's hook registers, that every answer it gives
is the registry's, that whatever could change the answer sends the lookup to the
registry, and that the first prompt imports neither pluggy nor importlib.metadata nor
another plugin.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from granite_formatters import hookimpl
from granite_formatters._catalog import read_catalog
from granite_formatters._errors import PluginLoadError, UnknownModelError
from granite_formatters._hookspecs import Register
from granite_formatters._plugins import (
    BUNDLED_PLUGINS,
    ENV_DISABLE,
    ENV_LOAD,
    ENV_OVERRIDE,
    ENV_STRICT,
    PluginHost,
)
from granite_formatters._registry import ModelRegistry

from support.releases import RELEASES, Release

INSTALLED = [r for r in RELEASES if r.installed]
needs_plugins = pytest.mark.skipif(not INSTALLED, reason="no bundled plugin is installed")


def _registry() -> ModelRegistry:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (a broken plugin elsewhere is not the subject)
        return PluginHost(environ={}).registry()


@needs_plugins
def test_each_bundled_catalogue_lists_what_its_hook_registers() -> None:
    registry = _registry()
    catalog = read_catalog(BUNDLED_PLUGINS)
    for distribution in sorted({r.distribution for r in INSTALLED}):
        registered = {
            m.model_id: str(registry._specs[m.model_id].input_processor)
            for m in registry.list_models()
            if m.plugin.name == distribution
        }
        declared = {
            e.model_id: f"{e.release}.input_processor"
            for e in catalog.values()
            if e.distribution == distribution
        }
        assert declared == registered, distribution
        assert all(
            e.module == f"{e.distribution.replace('-', '_')}.plugin" for e in catalog.values()
        )


def _spellings(name: str) -> list[str]:
    return [name, name.upper(), f"ibm-granite/{name}", f"{name}-Q4_K_M.gguf", f"ollama/{name}"]


@needs_plugins
def test_every_catalogue_answer_is_the_registrys() -> None:
    registry = _registry()
    host = PluginHost(environ={})
    names = [s for name in registry.known_names() for s in _spellings(name)]
    names += ["granite-4.1-8b-base", "granite-3.2-8b-instruct-abliterated", "x", ""]
    answered = 0
    for name in names:
        entry = host._catalog_entry(name)
        if entry is None:
            continue
        answered += 1
        assert entry.model_id == registry.resolve(name).model.model_id, name
    # Every id and a spelling of each is answered without the registry.
    assert answered >= 2 * len(registry.list_models())


@needs_plugins
def test_the_registry_keeps_the_formatter_the_catalogue_served() -> None:
    host = PluginHost(environ={})
    model = INSTALLED[0].model
    served = host.formatter(model)
    assert host._registry is None, "served before any plugin was discovered"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        registry = host.registry()
    assert registry.get_formatter(model) is served is host.formatter(model)
    assert served.plugin is not None and served.plugin.bundled


@needs_plugins
@pytest.mark.parametrize(
    "environ",
    [
        {ENV_LOAD: ""},
        {ENV_DISABLE: INSTALLED[0].distribution if INSTALLED else "x"},
        {ENV_OVERRIDE: "someone-else"},
        {ENV_STRICT: "1"},
    ],
)
def test_the_variables_send_each_lookup_to_the_registry(environ: dict[str, str]) -> None:
    host = PluginHost(environ=environ)
    model = INSTALLED[0].model
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            host.formatter(model)
        except UnknownModelError:
            assert ENV_LOAD in environ or ENV_DISABLE in environ  # (the plugin is not loaded)
        except PluginLoadError:
            assert ENV_STRICT in environ  # (a broken plugin installed beside the bundled)
            return
    assert host._registry is not None and host._served == {}


class _Taker:
    """A programmatic plugin that takes a bundled model id (with override)."""

    def __init__(self, model_id: str) -> None:
        self.model_id = model_id

    @hookimpl
    def register_formatters(self, register: Register) -> None:
        register(
            self.model_id,
            input_processor="granite_formatters_granite4.releases:GRANITE41.input_processor",
            output_processor="granite_formatters_granite4.releases:GRANITE41.output_processor",
        )


@pytest.mark.skipif(
    not any(r.version == "4.1" for r in INSTALLED), reason="the granite4 plugin is not installed"
)
def test_a_programmatic_override_is_never_bypassed() -> None:
    host = PluginHost(environ={})
    host.register_plugin(_Taker("granite-4.1-8b"), name="taker", override=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        formatter = host.formatter("granite-4.1-8b")
    assert formatter.plugin is not None and formatter.plugin.name == "taker"
    assert host._served == {}


def _dist(folder: Path, name: str, text: str) -> None:
    info = folder / f"{name}.dist-info"
    info.mkdir(parents=True)
    (info / "entry_points.txt").write_text(text, encoding="utf-8")


def test_read_catalog_reads_the_first_installed_copy_of_each_distribution(
    tmp_path: Path,
) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    _dist(
        first,
        "granite_formatters_x-1.0",
        "# comment\n[granite_formatters]\ngranite-formatters-x = x.plugin\n\n"
        "[granite_formatters.models]\nm-1 = x.releases:ONE\n; other comment\nm-2 = x.releases:TWO\n",
    )
    _dist(
        second,
        "granite_formatters_x-2.0",
        "[granite_formatters]\ngranite-formatters-x = x.plugin\n"
        "[granite_formatters.models]\nm-3 = x.releases:THREE\n",
    )
    # An entry point not named after its distribution: no catalogue is read from it.
    _dist(
        second,
        "granite_formatters_y-1.0",
        "[granite_formatters]\ngranite-formatters-x = y.plugin\n"
        "[granite_formatters.models]\nm-4 = y.releases:FOUR\n",
    )
    wanted = {"granite-formatters-x", "granite-formatters-y"}
    found = read_catalog(wanted, [str(tmp_path / "missing"), str(first), str(second)])
    assert {k: (e.release, e.distribution, e.version) for k, e in found.items()} == {
        "m-1": ("x.releases:ONE", "granite-formatters-x", "1.0"),
        "m-2": ("x.releases:TWO", "granite-formatters-x", "1.0"),
    }
    assert read_catalog(wanted, [str(second)])["m-3"].version == "2.0"


FIRST_PROMPT = """
import json, sys
from granite_formatters import get_formatter
get_formatter(sys.argv[1]).format({"messages": [{"role": "user", "content": "Hi"}]})
print(json.dumps(sorted(sys.modules)))
"""


@pytest.mark.parametrize(
    "release",
    [
        pytest.param(
            r,
            id=r.version,
            marks=pytest.mark.skipif(not r.installed, reason=f"{r.distribution} is not installed"),
        )
        for r in RELEASES
    ],
)
def test_a_first_prompt_imports_its_release_only(release: Release) -> None:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("GRANITE_FORMATTERS_")}
    proc = subprocess.run(
        [sys.executable, "-c", FIRST_PROMPT, release.model],
        capture_output=True,
        text=True,
        check=True,
        env=environ,
    )
    modules = set(json.loads(proc.stdout))
    assert {"pluggy", "importlib.metadata", "granite_formatters._hookspecs"}.isdisjoint(modules)
    plugins = {m for m in modules if m.startswith("granite_formatters_")}
    assert plugins == {release.module, f"{release.module}.releases"}
