"""Resolution rules, conflicts and ambiguity of the model-name registry."""

from __future__ import annotations

import pytest

from granite_formatters._errors import (
    AmbiguousModelError,
    PluginLoadError,
    PluginWarning,
    UnknownModelError,
)
from granite_formatters._plugins import PluginHost
from granite_formatters._records import FormatterSpec, PluginInfo
from granite_formatters._registry import ModelRegistry

from support.toy_plugins import EchoInput, EchoOutput, toy_plugin


def spec(model_id: str, plugin: str = "p", **kw: object) -> FormatterSpec:
    return FormatterSpec(
        model_id=model_id,
        input_processor=EchoInput,
        output_processor=EchoOutput,
        plugin=plugin,
        **kw,  # type: ignore[arg-type]
    )


def registry(*specs: FormatterSpec) -> ModelRegistry:
    plugins = sorted({s.plugin for s in specs})
    return ModelRegistry.build(specs, [PluginInfo(name=p) for p in plugins])


def test_exact_id_wins_over_everything() -> None:
    reg = registry(spec("Model-A", aliases=("model-b",)), spec("model-b", plugin="q"))
    res = reg.resolve("model-b")
    # "model-b" is an alias of Model-A *and* an id of another model: the id wins.
    assert (res.model.model_id, res.rule, res.matched) == ("model-b", "id", "model-b")
    assert [(c.name, c.winner, c.loser) for c in reg.conflicts] == [
        ("model-b", "model-b", "Model-A")
    ]


def test_alias_then_normalized() -> None:
    reg = registry(spec("granite-x", aliases=("GraniteX:Latest",)))
    assert reg.resolve("GraniteX:Latest").rule == "alias"
    res = reg.resolve("  granitex:latest ")
    assert (res.model.model_id, res.rule, res.matched) == (
        "granite-x",
        "normalized",
        "GraniteX:Latest",
    )
    assert reg.resolve("GRANITE-X").rule == "normalized"


def test_most_specific_pattern_wins() -> None:
    reg = registry(
        spec("generic", patterns=("granite-*",)),
        spec("specific", patterns=("granite-9.9-*-instruct*",), plugin="q"),
    )
    res = reg.resolve("granite-9.9-8b-instruct-q4_k_m")
    assert (res.model.model_id, res.rule, res.matched) == (
        "specific",
        "pattern",
        "granite-9.9-*-instruct*",
    )
    assert reg.resolve("granite-other").model.model_id == "generic"


def test_equal_patterns_from_two_plugins_are_ambiguous() -> None:
    reg = registry(spec("a", patterns=("foo-*",)), spec("b", plugin="q", patterns=("foo-*",)))
    with pytest.raises(AmbiguousModelError) as info:
        reg.resolve("foo-bar")
    assert info.value.candidates == (("a", "p"), ("b", "q"))
    assert "ambiguous" in str(info.value)
    assert isinstance(info.value, UnknownModelError)


def test_equal_patterns_for_the_same_model_are_not_ambiguous() -> None:
    reg = registry(spec("a", patterns=("foo-*", "*-bar")))
    assert reg.resolve("foo-bar").model.model_id == "a"


def test_unknown_lists_close_matches_and_counts() -> None:
    reg = registry(spec("granite-3.2-8b-instruct", aliases=("granite3.2:8b",)))
    with pytest.raises(UnknownModelError) as info:
        reg.resolve("granite-3.2-8b-instrct")
    error = info.value
    assert isinstance(error, LookupError) and not isinstance(error, KeyError)
    assert error.suggestions == ("granite-3.2-8b-instruct",)
    text = str(error)
    assert text.startswith("Unknown model 'granite-3.2-8b-instrct'.")
    assert "Did you mean: 'granite-3.2-8b-instruct'?" in text
    assert "2 model names are registered by 1 plugin(s)" in text


def test_unknown_mentions_failed_plugins() -> None:
    failure = PluginLoadError(
        "granite-formatters-x", "1.2", "import failed: ModuleNotFoundError('y')"
    )
    reg = ModelRegistry.build([], [], load_errors=[failure])
    with pytest.raises(UnknownModelError, match="granite-formatters-x 1.2: import failed"):
        reg.resolve("anything")


def test_non_string_name_is_an_unknown_model() -> None:
    reg = registry(spec("a"))
    with pytest.raises(UnknownModelError, match="must be a string"):
        reg.resolve(42)  # type: ignore[arg-type]


def test_id_claimed_twice_first_registration_wins() -> None:
    reg = ModelRegistry.build(
        [spec("m", plugin="bundled"), spec("m", plugin="third")],
        [PluginInfo(name="bundled"), PluginInfo(name="third")],
    )
    assert reg.resolve("m").model.plugin.name == "bundled"
    (conflict,) = reg.conflicts
    assert (conflict.name, conflict.winner_plugin, conflict.loser_plugin) == (
        "m",
        "bundled",
        "third",
    )
    third = next(p for p in reg.list_plugins() if p.name == "third")
    assert third.models == ()
    assert "'m' is claimed by plugin bundled" in third.errors[0]


def test_alias_claimed_twice_keeps_the_rest_of_the_registration() -> None:
    reg = ModelRegistry.build(
        [
            spec("a", plugin="p1", aliases=("shared",)),
            spec("b", plugin="p2", aliases=("shared", "own")),
        ],
        [PluginInfo(name="p1"), PluginInfo(name="p2")],
    )
    assert reg.resolve("shared").model.model_id == "a"
    assert reg.resolve("own").model.model_id == "b"
    assert reg.list_models()[1].aliases == ("own",)
    assert [c.name for c in reg.conflicts] == ["shared"]


def test_bundled_plugins_take_precedence_over_third_party(host: PluginHost) -> None:
    # Programmatic plugins come after entry-point plugins; within entry points bundled
    # ones are ordered first. Here both are programmatic: registration order decides.
    host.register_plugin(
        toy_plugin({"model_id": "m", "input_processor": lambda: EchoInput("one")}), name="one"
    )
    host.register_plugin(
        toy_plugin({"model_id": "m", "input_processor": lambda: EchoInput("two")}), name="two"
    )
    with pytest.warns(PluginWarning, match="'m' is claimed by plugin one"):
        reg = host.registry()
    assert (
        reg.get_formatter("m").format({"messages": [{"role": "user", "content": "x"}]}) == "[one]"
    )


def test_formatter_is_created_once_and_reused(host: PluginHost) -> None:
    calls: list[int] = []

    def factory() -> EchoInput:
        calls.append(1)
        return EchoInput()

    host.register_plugin(toy_plugin({"model_id": "m", "input_processor": factory}), name="p")
    reg = host.registry()
    assert reg.get_formatter("m") is reg.get_formatter("M")
    assert calls == [1]


def test_lazy_string_sources_are_imported_on_first_use(host: PluginHost) -> None:
    host.register_plugin(
        toy_plugin(
            {
                "model_id": "lazy",
                "input_processor": "conftest:EchoInput",
                "output_processor": "conftest:EchoOutput",
            }
        ),
        name="p",
    )
    formatter = host.registry().get_formatter("lazy")
    assert isinstance(formatter.input_processor, EchoInput)
    assert formatter.parse("abc").content == "ABC"
    assert formatter.plugin is not None and formatter.plugin.name == "p"


@pytest.mark.parametrize(
    ("source", "problem"),
    [
        ("no_such_module_xyz:Thing", "cannot import 'no_such_module_xyz:Thing'"),
        ("conftest:NoSuchThing", "cannot import 'conftest:NoSuchThing'"),
        (
            "conftest:EchoOutput",
            "'conftest:EchoOutput' for model m produced EchoOutput, not an InputProcessor",
        ),
    ],
)
def test_bad_processor_sources_name_the_plugin(host: PluginHost, source: str, problem: str) -> None:
    host.register_plugin(toy_plugin({"model_id": "m", "input_processor": source}), name="p")
    with pytest.raises(PluginLoadError, match=f"plugin p: {problem}"):
        host.registry().get_formatter("m")


def test_list_models_is_sorted_and_complete(host: PluginHost) -> None:
    host.register_plugin(
        toy_plugin({"model_id": "z"}, {"model_id": "a", "aliases": ["aa"]}), name="p"
    )
    models = host.registry().list_models()
    assert [(m.model_id, m.aliases, m.plugin.name) for m in models] == [
        ("a", ("aa",), "p"),
        ("z", (), "p"),
    ]
