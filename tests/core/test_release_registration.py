"""Registering a release (``register(release=...)``), and the first plugin contract kept.

A plugin declares a :class:`~granite_formatters.Release` and the core builds the
processors; the processor classes stay as the escape hatch, and a processor written
against the first contract (``transform`` without ``special_tokens`` and ``strict``)
keeps working through ``get_formatter``.
"""

from __future__ import annotations

import datetime
import pickle
import sys
import types
from typing import Any

import attrs
import pytest

from granite_formatters import (
    InputProcessor,
    Release,
    get_formatter,
    hookimpl,
    plugin_errors,
    register_plugin,
)
from granite_formatters._errors import FormatterError
from granite_formatters._plugins import PluginHost, _Recorder
from granite_formatters._processors import RequestLike
from granite_formatters._special_tokens import SpecialTokens
from granite_formatters.syntax import GRANITE_ROLES, JSON_BLOCKS, SystemBlocksLayout

from support.toy_plugins import EchoOutput

TOY = Release(
    name="Toy 1.0",
    family="Toy",
    turns=GRANITE_ROLES,
    special_tokens=SpecialTokens(("<|start_of_role|>", "<|end_of_role|>", "<|end_of_text|>")),
    stop_strings=("<|end_of_text|>",),
    tool_calls=JSON_BLOCKS,
    layout=SystemBlocksLayout(default_system_message="Be kind."),
)
HI = {"messages": [{"role": "user", "content": "Hi"}]}


class _ReleasePlugin:
    @hookimpl
    def register_formatters(self, register: Any) -> None:
        register("toy-1.0", release=TOY, aliases=["toy"], description="A toy release")


def test_a_registered_release_formats_and_parses(default_host: PluginHost) -> None:
    register_plugin(_ReleasePlugin(), name="toy-release")
    formatter = get_formatter("toy")
    assert formatter.format(HI) == (
        "<|start_of_role|>system<|end_of_role|>Be kind.<|end_of_text|>\n"
        "<|start_of_role|>user<|end_of_role|>Hi<|end_of_text|>\n"
        "<|start_of_role|>assistant<|end_of_role|>"
    )
    message = formatter.parse('Sure. <tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>')
    assert message.content == "Sure."
    assert [(c.name, c.arguments) for c in message.tool_calls] == [("f", {"a": 1})]
    assert formatter.stop_strings == ("<|end_of_text|>",)
    assert not plugin_errors()
    copy = pickle.loads(pickle.dumps(formatter))
    assert copy == formatter and copy.format(HI) == formatter.format(HI)


def test_a_release_differs_by_data_alone() -> None:
    quiet = attrs.evolve(TOY, name="Toy 1.1", layout=SystemBlocksLayout())
    prompt = quiet.input_processor().transform(HI)
    assert prompt.startswith("<|start_of_role|>user")


@pytest.mark.parametrize(
    ("call", "message"),
    [
        ({"release": TOY, "input_processor": "a:b"}, "either release= or input_processor="),
        ({"release": "granite-4.1"}, "release must be a granite_formatters.Release or a "),
        ({"release": 41}, "string naming one, got 41"),
        ({}, "input_processor is missing: give release= or both"),
        ({"input_processor": "a:b"}, "output_processor is missing"),
    ],
)
def test_exactly_one_way_per_registration(call: dict[str, Any], message: str) -> None:
    with pytest.raises(TypeError, match=message):
        _Recorder("p")("m", **call)


class _LazyReleasePlugin:
    @hookimpl
    def register_formatters(self, register: Any) -> None:
        register("toy-lazy", release="gf_toy_lazy_release:TOY")


def test_a_release_named_by_a_string_is_imported_on_first_use(
    default_host: PluginHost, monkeypatch: pytest.MonkeyPatch
) -> None:
    register_plugin(_LazyReleasePlugin(), name="toy-lazy")
    default_host.registry()  # (registered while the module cannot be imported)
    assert "gf_toy_lazy_release" not in sys.modules
    module = types.ModuleType("gf_toy_lazy_release")
    module.TOY = TOY  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "gf_toy_lazy_release", module)
    formatter = get_formatter("toy-lazy")
    assert formatter.release == TOY
    assert formatter.format(HI) == TOY.input_processor().transform(HI)
    assert formatter.parse("Hello.").content == "Hello."
    assert not plugin_errors()


class _ReleaseWithParserPlugin:
    @hookimpl
    def register_formatters(self, register: Any) -> None:
        register("toy-echo", release=TOY, output_processor=EchoOutput)


def test_a_release_with_its_own_output_processor(default_host: PluginHost) -> None:
    register_plugin(_ReleaseWithParserPlugin(), name="toy-echo")
    formatter = get_formatter("toy-echo")
    assert formatter.release == TOY
    assert formatter.format(HI) == TOY.input_processor().transform(HI)
    assert type(formatter.output_processor) is EchoOutput
    assert not plugin_errors()


class FirstContractInput(InputProcessor):
    """An input processor written against the first plugin contract (API 1.0)."""

    def transform(  # type: ignore[override]
        self,
        chat_completion: RequestLike,
        add_generation_prompt: bool = True,
        *,
        today: datetime.date | None = None,
    ) -> str:
        return f"[first {today} {add_generation_prompt}]"


class _FirstContractPlugin:
    @hookimpl
    def register_formatters(self, register: Any) -> None:
        register("first-1.0", input_processor=FirstContractInput, output_processor=EchoOutput)


def test_a_first_contract_processor_keeps_working(default_host: PluginHost) -> None:
    register_plugin(_FirstContractPlugin(), name="gf-first")
    formatter = get_formatter("first-1.0")
    assert formatter.format(HI) == "[first None True]"
    day = datetime.date(2025, 1, 2)
    assert formatter.format(HI, today=day, add_generation_prompt=False) == (
        "[first 2025-01-02 False]"
    )
    # Options left at their defaults are not passed; asking for one is a clear error.
    assert formatter.format(HI, special_tokens=None, strict=True) == "[first None True]"
    asked: list[tuple[str, Any]] = [("special_tokens", "strip"), ("strict", False)]
    for option, value in asked:
        with pytest.raises(FormatterError) as info:
            formatter.format(HI, **{option: value})
        text = str(info.value)
        assert f"does not support the option {option!r}" in text
        assert "gf-first" in text and "FirstContractInput" in text
    assert formatter.parse("ok").content == "OK"
    assert formatter.stop_strings == ()
