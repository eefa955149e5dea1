"""Plugin precedence: bundled names stay bundled unless explicitly
overridden, patterns stay in their place, impostor distributions and BaseException
failures are isolated.

The "bundled" plugins here are fake installed distributions that carry a bundled
distribution name, so these tests need no real plugin installed.
"""

from __future__ import annotations

import importlib.util
import warnings
from typing import Any

import pytest

from granite_formatters._errors import PluginLoadError, PluginWarning, UnknownModelError
from granite_formatters._plugins import ENV_LOAD, ENV_OVERRIDE, ENV_STRICT, PluginHost

from support.toy_plugins import MakeDist, good_plugin, toy_plugin

MESSAGES = {"messages": [{"role": "user", "content": "x"}]}
G33 = "granite-formatters-granite33"
G32 = "granite-formatters-granite32"

BUNDLED_33 = """
from granite_formatters import hookimpl
from conftest import EchoInput, EchoOutput

@hookimpl
def register_formatters(register):
    register(
        "granite-3.3-8b-instruct",
        input_processor=lambda: EchoInput("bundled"),
        output_processor=EchoOutput,
        aliases=["ibm-granite/granite-3.3-8b-instruct", "granite3.3:8b"],
        patterns=["granite-3.3-8b-instruct-*"],
    )
"""


def host_with_bundled(make_dist: MakeDist, *others: str, **env: str) -> PluginHost:
    make_dist(G33, BUNDLED_33)
    return PluginHost(environ={ENV_LOAD: ",".join([G33, *others]), **env})


def quiet_registry(host: PluginHost) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PluginWarning)
        return host.registry()


def rendered(host: PluginHost, name: str) -> str:
    return str(quiet_registry(host).get_formatter(name).format(MESSAGES))


def taker(model_id: str, **extra: Any) -> object:
    from support.toy_plugins import EchoInput

    return toy_plugin(
        {"model_id": model_id, "input_processor": lambda: EchoInput("taker"), **extra}
    )


# -- bundled names ----------------------------------------------------------------------


def test_third_party_id_equal_to_a_bundled_alias_does_not_take_it(make_dist: MakeDist) -> None:
    make_dist("gf-taker", good_plugin("granite3.3:8b", tag="taker"))
    host = host_with_bundled(make_dist, "gf-taker")
    with pytest.warns(PluginWarning, match="'granite3.3:8b' is claimed by plugin " + G33):
        registry = host.registry()
    assert registry.resolve("granite3.3:8b").model.plugin.name == G33
    assert rendered(host, "granite3.3:8b") == "[bundled]"
    (error,) = host.plugin_errors()
    assert error.plugin == "gf-taker"


def test_register_plugin_cannot_take_a_bundled_alias(make_dist: MakeDist) -> None:
    host = host_with_bundled(make_dist)
    host.register_plugin(taker("granite3.3:8b"), name="mine")
    assert rendered(host, "granite3.3:8b") == "[bundled]"
    assert [e.plugin for e in host.plugin_errors()] == ["mine"]
    assert "'granite3.3:8b' is claimed by plugin " + G33 in str(host.plugin_errors()[0])


def test_strict_mode_blames_the_taker_not_the_bundled_plugin(make_dist: MakeDist) -> None:
    host = host_with_bundled(make_dist, **{ENV_STRICT: "1"})
    host.register_plugin(taker("granite3.3:8b"), name="mine")
    with pytest.raises(PluginLoadError) as info:
        host.registry()
    assert info.value.plugin == "mine"


@pytest.mark.parametrize(
    "name",
    [
        "Granite-3.3-8B-Instruct",
        "ollama/granite3.3:8b",
        "granite-3.3-8b-instruct-Q4_K_M.gguf",
        "bartowski/ibm-granite_granite-3.3-8b-instruct-GGUF",
    ],
)
@pytest.mark.parametrize("as_alias", [False, True])
def test_names_equal_once_normalised_stay_bundled(
    make_dist: MakeDist, name: str, as_alias: bool
) -> None:
    host = host_with_bundled(make_dist)
    plugin = taker("my-model", aliases=[name]) if as_alias else taker(name)
    host.register_plugin(plugin, name="mine")
    assert rendered(host, name) == "[bundled]"
    (error,) = host.plugin_errors()
    assert error.plugin == "mine"
    assert "(normalised: 'granite-3.3-8b-instruct')" in error.problem
    if as_alias:  # the rest of the registration stays
        assert rendered(host, "my-model") == "[taker]"


def test_override_by_register_plugin_is_allowed_and_recorded(make_dist: MakeDist) -> None:
    host = host_with_bundled(make_dist, **{ENV_STRICT: "1"})
    host.register_plugin(
        taker("granite3.3:8b", aliases=["Granite-3.3-8B-Instruct"]), name="mine", override=True
    )
    assert rendered(host, "granite3.3:8b") == "[taker]"
    assert rendered(host, "Granite-3.3-8B-Instruct") == "[taker]"
    assert rendered(host, "granite-3.3-8b-instruct") == "[bundled]"  # its id is its own
    errors = host.plugin_errors()
    assert [e.plugin for e in errors] == ["mine", "mine"]
    assert all("as explicitly allowed" in e.problem for e in errors)


def test_override_by_environment_variable(make_dist: MakeDist) -> None:
    make_dist("gf-taker", good_plugin("granite3.3:8b", tag="taker"))
    host = host_with_bundled(make_dist, "gf-taker", **{ENV_OVERRIDE: "gf-taker"})
    assert rendered(host, "granite3.3:8b") == "taker"
    errors = host.plugin_errors()
    assert errors and all(e.plugin == "gf-taker" for e in errors)
    assert all("gf-taker overrides 'granite3.3:8b'" in e.problem for e in errors)


def test_a_bundled_plugin_cannot_be_given_override(make_dist: MakeDist) -> None:
    host = host_with_bundled(make_dist, **{ENV_OVERRIDE: G33})
    assert not quiet_registry(host).list_plugins()[0].override


# -- patterns ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "granite-3.3-8b-base",
        "ibm-granite/granite-3.3-8b-base",
        "granite-guardian-3.2-5b",
        "ibm-granite/granite-vision-3.2-2b",
    ],
)
def test_a_pattern_never_matches_refused_variants(make_dist: MakeDist, name: str) -> None:
    host = host_with_bundled(make_dist)
    host.register_plugin(taker("catch-all", patterns=["*"]), name="mine")
    registry = quiet_registry(host)
    with pytest.raises(UnknownModelError, match="base, Guardian and vision models"):
        registry.resolve(name)
    assert registry.resolve("some-other-model").model.model_id == "catch-all"


def test_an_explicit_alias_can_name_a_refused_variant(host: PluginHost) -> None:
    host.register_plugin(taker("vision", aliases=["granite-vision-3.2-2b"]), name="mine")
    assert host.registry().resolve("ibm-granite/granite-vision-3.2-2b").model.model_id == "vision"


@pytest.mark.parametrize(
    "name", ["granite3.3:8b", "ibm-granite/granite-3.3-8b-instruct", "Granite3.3:8B"]
)
def test_a_pattern_never_wins_over_explicit_names_of_another_plugin(
    make_dist: MakeDist, name: str
) -> None:
    host = host_with_bundled(make_dist)
    host.register_plugin(taker("catch-all", patterns=["*", "granite-3.3-8b-instruct"]), name="m")
    assert rendered(host, name) == "[bundled]"


def test_an_equally_specific_pattern_loses_to_the_bundled_one(make_dist: MakeDist) -> None:
    host = host_with_bundled(make_dist)
    host.register_plugin(taker("mine", patterns=["granite-3.3-8b-instruct-*"]), name="m")
    assert rendered(host, "granite-3.3-8b-instruct-custom") == "[bundled]"


# -- distributions ----------------------------------------------------------------------


def test_an_impostor_entry_point_does_not_replace_the_bundled_plugin(make_dist: MakeDist) -> None:
    make_dist("aaa-impostor", good_plugin("granite-3.3-8b-instruct", tag="impostor"), ep_name=G33)
    make_dist(G33, BUNDLED_33, version="3.3.0")
    for env in ({}, {ENV_LOAD: f"{G33},aaa-impostor"}):
        host = PluginHost(environ=env)
        with pytest.warns(PluginWarning, match="aaa-impostor 1.0: declares the entry point"):
            registry = host.registry()
        assert registry.get_formatter("granite3.3:8b").format(MESSAGES) == "[bundled]"
        plugin = registry.resolve("granite3.3:8b").model.plugin
        assert (plugin.name, plugin.distribution, plugin.version, plugin.bundled) == (
            G33,
            G33,
            "3.3.0",
            True,
        )
        (error,) = [e for e in host.plugin_errors() if "aaa-impostor" in str(e)]
        assert error.plugin == "aaa-impostor" and error.version == "1.0"
        names = [p.name for p in registry.list_plugins()]
        assert G33 in names and "aaa-impostor" in names


def test_an_impostor_alone_is_not_loaded_as_the_bundled_plugin(make_dist: MakeDist) -> None:
    g4 = "granite-formatters-granite4"  # a bundled name that must not be installed here
    if importlib.util.find_spec("granite_formatters_granite4") is not None:
        pytest.skip("the bundled granite4 plugin is installed in this environment")
    make_dist("aaa-impostor", good_plugin("granite-4.0-micro", tag="impostor"), ep_name=g4)
    for env in ({}, {ENV_LOAD: "aaa-impostor"}):
        host = PluginHost(environ={**env, "GRANITE_FORMATTERS_DISABLE_PLUGINS": G32 + "," + G33})
        with pytest.warns(PluginWarning, match="aaa-impostor"):
            registry = host.registry()
        assert registry.list_models() == []
    # Selecting the bundled name selects the bundled distribution (absent here), never
    # the impostor, and says nothing about it.
    host = PluginHost(environ={ENV_LOAD: g4})
    with pytest.warns(PluginWarning, match=f"{g4}: named in {ENV_LOAD} but not installed"):
        assert host.registry().list_models() == []
    assert all("aaa-impostor" not in str(e) for e in host.plugin_errors())


def test_the_impostor_is_silent_when_disabled_or_not_selected(make_dist: MakeDist) -> None:
    make_dist("aaa-impostor", good_plugin("x", tag="impostor"), ep_name=G32)
    make_dist("gf-other", good_plugin("other"))
    environments: list[dict[str, str]] = [
        {ENV_LOAD: "gf-other"},
        {"GRANITE_FORMATTERS_DISABLE_PLUGINS": "aaa-impostor"},
    ]
    if importlib.util.find_spec("granite_formatters_granite32") is not None:
        # Selecting the genuine bundled plugin by name does not select the impostor (without
        # the bundled plugin installed, naming it is a "not installed" warning instead).
        environments.append({ENV_LOAD: f"gf-other,{G32}"})
    for env in environments:
        host = PluginHost(environ=env)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            models = [m.model_id for m in host.registry().list_models()]
        assert "other" in models and "x" not in models
        assert host.plugin_errors() == []


# -- BaseException ----------------------------------------------------------------------

EXIT_AT_IMPORT = "import sys\nsys.exit('plugin says bye')\n"
EXIT_IN_HOOK = """
from granite_formatters import hookimpl

class Stop(BaseException):
    pass

@hookimpl
def register_formatters(register):
    raise {exc}
"""
EXIT_IN_PROCESSOR = """
from granite_formatters import hookimpl

def make():
    raise SystemExit(3)

@hookimpl
def register_formatters(register):
    register("exits", input_processor=make, output_processor=make)
"""


@pytest.mark.parametrize(
    ("source", "problem"),
    [
        (EXIT_AT_IMPORT, "import failed: SystemExit('plugin says bye')"),
        (EXIT_IN_HOOK.format(exc="SystemExit(2)"), "hook raised SystemExit(2)"),
        (EXIT_IN_HOOK.format(exc="Stop('x')"), "hook raised Stop('x')"),
        (EXIT_IN_HOOK.format(exc="GeneratorExit()"), "hook raised GeneratorExit()"),
    ],
)
def test_base_exceptions_from_a_plugin_are_isolated(
    make_dist: MakeDist, source: str, problem: str
) -> None:
    make_dist("gf-good", good_plugin("good-model"))
    make_dist("gf-bad", source)
    host = PluginHost(environ={ENV_LOAD: "gf-good,gf-bad"})
    with pytest.warns(PluginWarning, match="gf-bad"):
        registry = host.registry()
    assert registry.get_formatter("good-model").format(MESSAGES) == "ok"
    (error,) = host.plugin_errors()
    assert error.plugin == "gf-bad" and problem in error.problem


def test_a_processor_raising_system_exit_is_a_plugin_load_error(host: PluginHost) -> None:
    import importlib

    import conftest  # noqa: F401 - conftest is importable

    module = importlib.import_module("types").ModuleType("exits_mod")
    exec(EXIT_IN_PROCESSOR, module.__dict__)
    host.register_plugin(module, name="exits")
    with pytest.raises(PluginLoadError, match="SystemExit"):
        host.registry().get_formatter("exits")


def test_keyboard_interrupt_goes_through(make_dist: MakeDist) -> None:
    make_dist("gf-bad", EXIT_IN_HOOK.format(exc="KeyboardInterrupt()"))
    with pytest.raises(KeyboardInterrupt):
        PluginHost(environ={ENV_LOAD: "gf-bad"}).registry()
