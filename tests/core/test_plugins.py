"""The plugin host: entry-point discovery, isolation of broken plugins, env vars, strict mode."""

from __future__ import annotations

import importlib.util
import threading
from typing import Any

import pytest

import granite_formatters
from granite_formatters import hookimpl
from granite_formatters._errors import PluginLoadError, PluginWarning, UnknownModelError
from granite_formatters._plugins import ENV_DISABLE, ENV_LOAD, ENV_STRICT, PluginHost

from support.toy_plugins import MakeDist, good_plugin, toy_plugin

MESSAGES = {"messages": [{"role": "user", "content": "x"}]}

BROKEN_IMPORT = "raise RuntimeError('boom at import')\n"
BROKEN_HOOK = """
from granite_formatters import hookimpl

@hookimpl
def register_formatters(register):
    register("half-registered", input_processor="m:x", output_processor="m:x")
    raise ValueError("boom in hook")
"""
MISSPELT_HOOK = """
from granite_formatters import hookimpl

@hookimpl
def register_formatter(register):
    pass
"""
BAD_ARGS_HOOK = """
from granite_formatters import hookimpl

@hookimpl
def register_formatters(register, no_such_argument):
    pass
"""
NEEDS_NEWER_API = """
from granite_formatters import hookimpl
from conftest import EchoInput, EchoOutput

@hookimpl
def register_formatters(register):
    register("future", input_processor=EchoInput, output_processor=EchoOutput, requires_api=(1, 99))
"""


def host_for(*names: str, **env: str) -> PluginHost:
    """A host that loads only the named entry-point plugins."""
    return PluginHost(environ={ENV_LOAD: ",".join(names), **env})


def count_loads(host: PluginHost) -> list[None]:
    """Record each entry-point scan of ``host`` (one item per scan)."""
    loads: list[None] = []
    scan = host._load_entry_points

    def counted() -> list[Any]:
        loads.append(None)
        return scan()

    host._load_entry_points = counted  # type: ignore[method-assign]
    return loads


def test_entry_point_plugin_is_loaded_with_name_and_version(make_dist: MakeDist) -> None:
    make_dist("gf-good", good_plugin("good-model", tag="good"), version="2.5")
    registry = host_for("gf-good").registry()
    (plugin,) = registry.list_plugins()
    assert (plugin.name, plugin.version, plugin.source, plugin.models) == (
        "gf-good",
        "2.5",
        "entry point",
        ("good-model",),
    )
    assert plugin.hooks == ("register_formatters",)
    assert registry.get_formatter("good-model").format(MESSAGES) == "good"


@pytest.mark.parametrize(
    ("source", "problem"),
    [
        (BROKEN_IMPORT, "import failed: RuntimeError('boom at import')"),
        (BROKEN_HOOK, "register_formatters hook raised ValueError('boom in hook')"),
        (MISSPELT_HOOK, "implements unknown hook 'register_formatter' (misspelt?)"),
        (BAD_ARGS_HOOK, "invalid hook implementation"),
        (NEEDS_NEWER_API, "requires plugin API 1.99, but this granite-formatters provides 1.5"),
    ],
)
def test_a_broken_plugin_is_isolated(make_dist: MakeDist, source: str, problem: str) -> None:
    make_dist("gf-good", good_plugin("good-model"))
    make_dist("gf-bad", source)
    host = host_for("gf-good", "gf-bad")
    with pytest.warns(PluginWarning, match="gf-bad"):
        registry = host.registry()
    assert registry.get_formatter("good-model").format(MESSAGES) == "ok"
    errors = host.plugin_errors()
    assert len(errors) == 1
    assert str(errors[0]).startswith("plugin gf-bad 1.0: ") and problem in str(errors[0])
    bad = next(p for p in registry.list_plugins() if p.name == "gf-bad")
    assert bad.models == ()  # a hook that raised registers nothing, not half of it
    assert bad.version == "1.0" and problem in bad.errors[0]


@pytest.mark.parametrize("source", [BROKEN_IMPORT, BROKEN_HOOK, MISSPELT_HOOK, NEEDS_NEWER_API])
def test_strict_mode_turns_plugin_problems_into_errors(make_dist: MakeDist, source: str) -> None:
    make_dist("gf-bad", source)
    host = host_for("gf-bad", **{ENV_STRICT: "1"})
    with pytest.raises(PluginLoadError, match="plugin gf-bad 1.0"):
        host.registry()


def test_unknown_model_error_names_the_plugin_that_failed(make_dist: MakeDist) -> None:
    make_dist("gf-bad", BROKEN_IMPORT, version="3.1")
    host = host_for("gf-bad")
    with pytest.warns(PluginWarning), pytest.raises(UnknownModelError) as info:
        host.registry().resolve("granite-9.9-8b-instruct")
    assert (
        "a plugin failed to load and may provide this model: plugin gf-bad 3.1: import failed"
        in str(info.value)
    )


def test_two_distributions_sharing_an_entry_point_name_are_reported(make_dist: MakeDist) -> None:
    make_dist("gf-twin-a", good_plugin("twin-a-model"), ep_name="gf-twin")
    make_dist("gf-twin-b", good_plugin("twin-b-model"), ep_name="gf-twin")
    host = host_for("gf-twin")
    with pytest.warns(
        PluginWarning, match="entry point name 'gf-twin' is used by distributions gf-twin-a"
    ):
        registry = host.registry()
    assert [m.model_id for m in registry.list_models()] == ["twin-a-model"]
    (error,) = host.plugin_errors()
    assert "only gf-twin-a was loaded" in str(error)
    with pytest.raises(PluginLoadError, match="used by distributions"):
        host_for("gf-twin", **{ENV_STRICT: "1"}).registry()


def test_load_allowlist_disable_list_and_empty(make_dist: MakeDist) -> None:
    make_dist("gf-one", good_plugin("one"))
    make_dist("gf-two", good_plugin("two"))

    def models(host: PluginHost) -> list[str]:
        return [m.model_id for m in host.registry().list_models()]

    assert models(host_for("gf-one", "gf-two")) == ["one", "two"]
    assert models(host_for("gf-two")) == ["two"]
    assert models(PluginHost(environ={ENV_LOAD: ""})) == []
    assert models(host_for("gf-one", "gf-two", **{ENV_DISABLE: "gf-one"})) == ["two"]
    with pytest.warns(
        PluginWarning,
        match="gf-missing: named in GRANITE_FORMATTERS_LOAD_PLUGINS but not installed",
    ):
        assert models(host_for("gf-one", "gf-missing")) == ["one"]


@pytest.mark.parametrize("spelling", ["GF-ONE", "gf_one", "Gf.One", "gf--_one", " gf-one "])
def test_plugin_names_in_the_environment_are_compared_as_pip_compares_them(
    make_dist: MakeDist, spelling: str
) -> None:
    # A name in another case (or with _ or . for -) was silently ignored.
    make_dist("gf-one", good_plugin("one"))
    make_dist("gf-two", good_plugin("two"))

    def models(host: PluginHost) -> list[str]:
        return [m.model_id for m in host.registry().list_models()]

    assert models(host_for("gf-one", "gf-two", **{ENV_DISABLE: spelling})) == ["two"]
    assert models(host_for(spelling, "gf-two")) == ["one", "two"]
    assert models(host_for("gf-one", "gf-two", **{ENV_DISABLE: "gf-onex"})) == ["one", "two"]


#: A plugin whose import does not return (bounded here at 60 s so that a broken test
#: cannot hang the suite): it waits for a file that never appears.
HANGS_ON_IMPORT = """
import builtins, os, time
builtins._gf_hang_imported = True
deadline = time.monotonic() + 60
while not os.path.exists("/nonexistent/gf-hang-release") and time.monotonic() < deadline:
    time.sleep(0.01)
raise RuntimeError("the hanging plugin was imported")
"""


def _has_granite33() -> bool:
    return importlib.util.find_spec("granite_formatters_granite33") is not None


@pytest.mark.parametrize("how", ["disabled", "not in the allowlist", "disabled, other spelling"])
def test_a_plugin_that_hangs_on_import_is_left_out_by_name(
    make_dist: MakeDist, how: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # No time limit is put on plugin imports (docs/security.md, "Plugin precedence" 7:
    # none can be enforced safely in-process); naming the plugin keeps it from being
    # imported at all, so bundled models and other plugins resolve.
    import builtins

    monkeypatch.delattr(builtins, "_gf_hang_imported", raising=False)
    make_dist("gf-hangs", HANGS_ON_IMPORT)
    make_dist("gf-one", good_plugin("one"))
    environ = {
        "disabled": {ENV_DISABLE: "gf-hangs"},
        # (The bundled 3.3 plugin is named only where it is installed: a name in the
        # allowlist that is not installed is a warning, an error under pytest.)
        "not in the allowlist": {
            ENV_LOAD: "gf-one" + (",granite-formatters-granite33" if _has_granite33() else "")
        },
        "disabled, other spelling": {ENV_DISABLE: "GF_Hangs"},
    }[how]
    host = PluginHost(environ=environ)
    registry = host.registry()
    assert registry.resolve("one").model.model_id == "one"
    if _has_granite33():
        assert registry.resolve("granite3.3:8b").model.model_id == "granite-3.3-8b-instruct"
    assert not hasattr(builtins, "_gf_hang_imported")
    assert host.plugin_errors() == []


def test_plugins_load_on_first_lookup_once(make_dist: MakeDist) -> None:
    module = make_dist("gf-good", good_plugin("good-model"))
    import sys

    host = host_for("gf-good")
    loads = count_loads(host)
    assert module not in sys.modules
    assert loads == []
    host.registry()
    host.registry()
    assert module in sys.modules and len(loads) == 1


def test_programmatic_register_and_unregister_rebuild_the_registry() -> None:
    host = PluginHost(entry_points=False)
    host.register_plugin(toy_plugin({"model_id": "m1"}), name="mine")
    assert [m.model_id for m in host.registry().list_models()] == ["m1"]
    info = host.registry().list_plugins()[0]
    assert (info.name, info.source) == ("mine", "programmatic")
    host.register_plugin(toy_plugin({"model_id": "m2"}), name="other")
    assert [m.model_id for m in host.registry().list_models()] == ["m1", "m2"]
    host.unregister_plugin("mine")
    assert [m.model_id for m in host.registry().list_models()] == ["m2"]
    with pytest.raises(LookupError, match="no plugin named 'mine'"):
        host.unregister_plugin("mine")


def test_plugin_given_as_module_like_object_with_function_hook() -> None:
    class Namespace:
        pass

    plugin = Namespace()

    @hookimpl
    def register_formatters(register: object) -> None:
        from support.toy_plugins import EchoInput, EchoOutput

        register("ns-model", input_processor=EchoInput, output_processor=EchoOutput)  # type: ignore[operator]

    plugin.register_formatters = register_formatters  # type: ignore[attr-defined]
    host = PluginHost(entry_points=False)
    host.register_plugin(plugin, name="ns")
    assert host.registry().resolve("ns-model").model.plugin.name == "ns"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"model_id": ""}, "model_id must be a non-empty string"),
        ({"model_id": "m", "aliases": "oops"}, "aliases must be a list of non-empty strings"),
        ({"model_id": "m", "input_processor": 42}, "input_processor must be a class, a factory"),
    ],
)
def test_invalid_registrations_are_plugin_errors(kwargs: dict[str, object], message: str) -> None:
    host = PluginHost(entry_points=False)
    host.register_plugin(toy_plugin(kwargs), name="p")
    with pytest.warns(PluginWarning, match=message):
        host.registry()


def test_first_lookup_racing_from_32_threads_loads_once(make_dist: MakeDist) -> None:
    make_dist("gf-good", good_plugin("good-model"))
    host = host_for("gf-good")
    loads = count_loads(host)
    barrier = threading.Barrier(32)
    results: list[object] = []

    def worker() -> None:
        barrier.wait()
        results.append(host.registry().get_formatter("good-model"))

    threads = [threading.Thread(target=worker) for _ in range(32)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(loads) == 1
    assert len(results) == 32 and all(r is results[0] for r in results)


def test_public_api_uses_the_default_host(default_host: PluginHost) -> None:
    granite_formatters.register_plugin(
        toy_plugin({"model_id": "api-model", "aliases": ["api"]}), name="api"
    )
    try:
        assert granite_formatters.resolve_model("api").model.model_id == "api-model"
        assert [m.model_id for m in granite_formatters.list_models()] == ["api-model"]
        assert [p.name for p in granite_formatters.list_plugins()] == ["api"]
        assert granite_formatters.get_formatter("api").format(MESSAGES) == "[echo]"
        assert granite_formatters.get_formatter("api").parse("a").content == "A"
        assert granite_formatters.plugin_errors() == []
    finally:
        granite_formatters.unregister_plugin("api")
    with pytest.raises(UnknownModelError):
        granite_formatters.get_formatter("api")
