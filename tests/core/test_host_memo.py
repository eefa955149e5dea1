"""The plugin host's memo of each name's formatter: one lookup per name, dropped whenever
the answer for a name can change (a plugin registered or unregistered, ``reset``, the
registry built, a selection variable changed before it is built)."""

from __future__ import annotations

import warnings

import pytest

from granite_formatters._errors import UnknownModelError
from granite_formatters._plugins import _MAX_MEMO as MAX_MEMO
from granite_formatters._plugins import (
    ENV_DISABLE,
    ENV_LOAD,
    ENV_OVERRIDE,
    ENV_STRICT,
    PluginHost,
)

from support.toy_plugins import EchoInput, counted_lookups, toy_plugin

# (the names looked up are the bundled Granite 3.3 plugin's)
pytest.importorskip("granite_formatters_granite33")

MODEL = "granite-3.3-8b-instruct"
HI = {"messages": [{"role": "user", "content": "Hi"}]}
ALIASES = (
    "granite-3.3-8b-instruct",
    "ibm-granite/granite-3.3-8b-instruct",
    "granite-3.3-2b-instruct",
)


class _TakerInput(EchoInput):
    def __init__(self) -> None:
        super().__init__("taker")


def test_each_name_is_looked_up_once(monkeypatch: pytest.MonkeyPatch) -> None:
    host = PluginHost(environ={})
    lookups = counted_lookups(monkeypatch)
    first = host.formatter(MODEL)
    assert host.formatter(MODEL) is first and host.formatter(MODEL) is first
    assert lookups == [MODEL]
    for _ in range(2):
        with pytest.raises(UnknownModelError):
            host.formatter("no-such-model-xyz")
    assert lookups == [MODEL, "no-such-model-xyz", "no-such-model-xyz"]
    # The unknown name built the registry, which now decides (the same formatter).
    assert host._registry is not None
    assert host.formatter(MODEL) is first and host.formatter(MODEL) is first
    assert lookups[3:] == [MODEL]
    assert list(host._memo[1]) == [MODEL]


def test_the_memo_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("granite_formatters._plugins._MAX_MEMO", 2)
    host = PluginHost(environ={})
    for name in ALIASES:
        host.formatter(name)
        assert len(host._memo[1]) <= 2
    assert MAX_MEMO >= 64


@pytest.mark.parametrize("build_first", [False, True])
def test_a_plugin_registered_or_unregistered_after_a_lookup_is_seen(build_first: bool) -> None:
    host = PluginHost(environ={})
    if build_first:
        host.registry()
    bundled = host.formatter(MODEL)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (the takeover is a recorded warning)
        host.register_plugin(
            toy_plugin({"model_id": MODEL, "input_processor": _TakerInput}),
            name="taker",
            override=True,
        )
        taken = host.formatter(MODEL)
    assert taken.plugin is not None and taken.plugin.name == "taker"
    assert taken.format(HI) == "[taker]"
    host.unregister_plugin("taker")
    again = host.formatter(MODEL)
    assert again.plugin is not None and bundled.plugin is not None
    assert again.plugin.name == bundled.plugin.name == "granite-formatters-granite33"
    assert again.format(HI) == bundled.format(HI) != "[taker]"
    host.register_plugin(toy_plugin({"model_id": "toy-model"}), name="toy")
    assert host.formatter("toy-model").model_id == "toy-model"
    host.reset()
    with pytest.raises(UnknownModelError):
        host.formatter("toy-model")


def test_a_refused_takeover_keeps_the_bundled_formatter() -> None:
    host = PluginHost(environ={})
    bundled = host.formatter(MODEL)
    host.register_plugin(
        toy_plugin({"model_id": MODEL, "input_processor": _TakerInput}), name="taker"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert host.formatter(MODEL).format(HI) == bundled.format(HI) != "[taker]"
        assert any("taker" in str(error) for error in host.plugin_errors())


@pytest.mark.parametrize(
    "variable, value",
    [
        (ENV_DISABLE, "granite-formatters-granite33"),
        (ENV_LOAD, "granite-formatters-granite4"),
        (ENV_OVERRIDE, "nothing-installed"),
        (ENV_STRICT, "1"),
    ],
)
def test_a_selection_variable_set_after_a_lookup_is_seen(variable: str, value: str) -> None:
    """Before the registry is built, each lookup follows the variables as they are now."""
    environ: dict[str, str] = {}
    host = PluginHost(environ=environ)
    host.formatter(MODEL)
    assert host._registry is None  # (served from the catalogue)
    environ[variable] = value
    if variable in (ENV_DISABLE, ENV_LOAD):
        with pytest.raises(UnknownModelError):
            host.formatter(MODEL)
    else:
        assert host.formatter(MODEL).model_id == MODEL
        assert host._registry is not None  # (the variable sent the lookup to the registry)
