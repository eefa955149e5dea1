"""The opt-in pytest kit for plugin authors: fixtures and the contract-test base class."""

from __future__ import annotations

import datetime
import textwrap
from pathlib import Path

import pytest
from conftest import toy_plugin

import granite_formatters
from granite_formatters import plugins
from granite_formatters.plugins import PluginHost
from granite_formatters.testing import GoldenCase, load_golden_cases


def test_isolated_host_replaces_and_restores_the_default(isolated_host: PluginHost) -> None:
    assert plugins.default_host() is isolated_host
    assert granite_formatters.list_models() == []


def test_register_test_plugin(register_test_plugin: object) -> None:
    register_test_plugin(toy_plugin({"model_id": "kit-model"}), name="kit")  # type: ignore[operator]
    assert granite_formatters.resolve_model("kit-model").model.plugin.name == "kit"


def test_load_golden_cases(tmp_path: Path) -> None:
    (tmp_path / "b.json").write_text('{"request": {"messages": []}, "date": "2025-01-09"}')
    (tmp_path / "b.prompt.txt").write_bytes("é\n".encode())
    (tmp_path / "a.json").write_text(
        '{"request": {}, "add_generation_prompt": false, "special_tokens": "keep"}'
    )
    (tmp_path / "a.prompt.txt").write_text("x")
    assert load_golden_cases(tmp_path) == [
        GoldenCase("a", {}, "x", None, False, "keep"),
        GoldenCase("b", {"messages": []}, "é\n", datetime.date(2025, 1, 9), True),
    ]


PLUGIN = """
from granite_formatters import hookimpl
from granite_formatters.processors import InputProcessor, OutputProcessor
from granite_formatters.types import AssistantMessage, coerce_request, ChatCompletion

class In(InputProcessor):
    def transform(self, chat_completion, add_generation_prompt=True, *, today=None, special_tokens=None, strict=True):
        request = coerce_request(chat_completion, ChatCompletion)
        body = "".join(f"<{m.role}>{m.content}" for m in request.messages)
        return body + ("<assistant>" if add_generation_prompt else "")

class Out(OutputProcessor):
    def transform(self, model_output, chat_completion=None):
        content = model_output.replace("<junk>", "")
        return AssistantMessage(content=content, raw_content=None if content == model_output else model_output)

@hookimpl
def register_formatters(register):
    register("kit-1", input_processor=In, output_processor=Out, aliases=["kit:1"])
"""

CONTRACT = """
from granite_formatters.testing import FormatterContractTests, GoldenCase

class TestKitPlugin(FormatterContractTests):
    plugin_name = "gf-kit"
    model_ids = ["kit-1"]
    names = [("kit:1", "kit-1"), ("KIT-1", "kit-1")]
    golden_cases = [GoldenCase("hi", {"messages": [{"role": "user", "content": "Hi"}]}, "<user>Hi<assistant>")]
    output_samples = [("a<junk>b", None, "ab")]
    fuzz_examples = 20
"""


def _write_dist(root: Path, plugin: str) -> None:
    (root / "gf_kit_mod.py").write_text(textwrap.dedent(plugin), encoding="utf-8")
    info = root / "gf_kit-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: gf-kit\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[granite_formatters]\ngf-kit = gf_kit_mod\n")


def test_contract_base_class_passes_for_a_good_plugin(pytester: pytest.Pytester) -> None:
    _write_dist(pytester.path, PLUGIN)
    pytester.syspathinsert()
    pytester.makeconftest('pytest_plugins = ["granite_formatters.testing"]')
    pytester.makepyfile(test_contract=CONTRACT)
    result = pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=6)


def test_contract_base_class_catches_a_wrong_prompt_and_a_raising_parser(
    pytester: pytest.Pytester,
) -> None:
    broken = PLUGIN.replace('"<assistant>" if', '"<assistant> " if').replace(
        'content = model_output.replace("<junk>", "")',
        'content = model_output.replace("<junk>", "")\n        if "</" in model_output:\n            raise ValueError("boom")',
    )
    _write_dist(pytester.path, broken)
    pytester.syspathinsert()
    pytester.makeconftest('pytest_plugins = ["granite_formatters.testing"]')
    pytester.makepyfile(test_contract=CONTRACT.replace("fuzz_examples = 20", "fuzz_examples = 200"))
    result = pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=4, failed=2)
    result.stdout.fnmatch_lines(
        ["*test_golden_prompts*", "*test_parse_never_raises_on_fuzzed_output*"]
    )
