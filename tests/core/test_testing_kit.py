"""The opt-in pytest kit for plugin authors: fixtures and the contract-test base class."""

from __future__ import annotations

import datetime
import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

import granite_formatters
from granite_formatters import _plugins as plugins
from granite_formatters._plugins import PluginHost
from granite_formatters.testing import GoldenCase, load_golden_cases, render_chat_template

from support import oracle
from support.granite31_release import EXAMPLE_RELEASES
from support.toy_plugins import toy_plugin

REPO = Path(__file__).resolve().parents[2]
EXAMPLE_GOLDEN = REPO / "examples" / "granite-formatters-granite31" / "tests" / "golden"


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


def test_load_golden_cases_with_a_prompts_folder(tmp_path: Path) -> None:
    requests, prompts = tmp_path / "requests", tmp_path / "prompts"
    requests.mkdir()
    prompts.mkdir()
    (requests / "b.json").write_text('{"request": {"messages": []}, "date": "2025-01-09"}')
    (requests / "a.json").write_text('{"request": {}, "strict": false}')
    (requests / "only_elsewhere.json").write_text('{"request": {"x": 1}}')
    (prompts / "b.prompt.txt").write_bytes("é\n".encode())
    (prompts / "a.prompt.txt").write_text("x")
    # A prompt beside the requests is not read when prompts come from their own folder.
    (requests / "a.prompt.txt").write_text("not this one")
    assert load_golden_cases(requests, prompts=prompts) == [
        GoldenCase("a", {}, "x", None, True, None, False),
        GoldenCase("b", {"messages": []}, "é\n", datetime.date(2025, 1, 9), True),
    ]
    assert load_golden_cases(str(requests), prompts=str(tmp_path / "empty")) == []


def test_load_golden_cases_refuses_a_prompt_without_a_request(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text('{"request": {}}')
    (tmp_path / "a.prompt.txt").write_text("x")
    prompts = tmp_path / "3.9"
    prompts.mkdir()
    (prompts / "a.prompt.txt").write_text("x")
    (prompts / "lost.prompt.txt").write_text("y")
    (prompts / "gone.prompt.txt").write_text("z")
    with pytest.raises(ValueError) as caught:
        load_golden_cases(tmp_path, prompts=prompts)
    assert str(caught.value) == (
        f"golden prompts without a request in {tmp_path}: gone.prompt.txt, lost.prompt.txt "
        f"(add <name>.json there or delete the prompt from {prompts})"
    )


def test_load_golden_cases_without_prompts_still_needs_every_prompt(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text('{"request": {}}')
    with pytest.raises(FileNotFoundError):
        load_golden_cases(tmp_path)


def assert_failed_with(result: pytest.RunResult, failures: dict[str, str]) -> None:
    """Each test named in ``failures`` failed with exactly that message (a ``pytest.fail``
    without traceback: the line after the test's header in the failures section)."""
    lines = result.stdout.lines
    for test, message in failures.items():
        header = re.compile(r"_+ " + re.escape(test) + r" _+")
        found = [i for i, line in enumerate(lines) if header.fullmatch(line)]
        assert len(found) == 1, f"no failure report for {test}"
        assert lines[found[0] + 1] == message, test


PLUGIN = """
from granite_formatters import hookimpl
from granite_formatters._processors import InputProcessor, OutputProcessor
from granite_formatters._types import AssistantMessage, coerce_request, ChatCompletion

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


EMPTY_CONTRACT = """
from granite_formatters.testing import FormatterContractTests

class TestEmpty(FormatterContractTests):
    plugin_name = "gf-kit"
    model_ids = ["kit-1"]
    fuzz_examples = 5
"""


def test_contract_tests_with_empty_lists_fail_saying_what_to_set(
    pytester: pytest.Pytester,
) -> None:
    _write_dist(pytester.path, PLUGIN)
    pytester.syspathinsert()
    pytester.makeconftest('pytest_plugins = ["granite_formatters.testing"]')
    pytester.makepyfile(test_contract=EMPTY_CONTRACT)
    result = pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider", "-rf")
    result.assert_outcomes(passed=3, failed=3)
    assert_failed_with(
        result,
        {
            "TestEmpty.test_names_resolve": "FormatterContractTests subclass TestEmpty has no "
            'names: set names = [("name people use", "expected-model-id"), ...]',
            "TestEmpty.test_golden_prompts": "FormatterContractTests subclass TestEmpty has no "
            "golden_cases: set golden_cases = [GoldenCase(...), ...] or load_golden_cases(folder)",
            "TestEmpty.test_output_samples": "FormatterContractTests subclass TestEmpty has no "
            'output_samples: set output_samples = [("raw model output", request or None, '
            '"expected content"), ...]',
        },
    )


def test_contract_tests_without_plugin_name_or_model_ids_fail_saying_what_to_set(
    pytester: pytest.Pytester,
) -> None:
    _write_dist(pytester.path, PLUGIN)
    pytester.syspathinsert()
    pytester.makeconftest('pytest_plugins = ["granite_formatters.testing"]')
    unnamed = CONTRACT.replace('plugin_name = "gf-kit"', "").replace('model_ids = ["kit-1"]', "")
    pytester.makepyfile(test_contract=unnamed)
    result = pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider", "-rf")
    result.assert_outcomes(failed=6)
    no_model_ids = (
        "FormatterContractTests subclass TestKitPlugin has no model_ids: "
        'set model_ids = ["your-model-id", ...]'
    )
    no_plugin_name = (
        "FormatterContractTests subclass TestKitPlugin has no plugin_name: "
        'set plugin_name = "your-distribution-name"'
    )
    assert_failed_with(
        result,
        {
            "TestKitPlugin.test_plugin_is_registered_without_problems": no_plugin_name,
            "TestKitPlugin.test_names_resolve": no_plugin_name,
            "TestKitPlugin.test_golden_prompts": no_model_ids,
            "TestKitPlugin.test_output_samples": no_model_ids,
            "TestKitPlugin.test_processors_honour_the_interfaces": no_model_ids,
            "TestKitPlugin.test_parse_never_raises_on_fuzzed_output": no_model_ids,
        },
    )


# -- the Granite 3 input contract --------------------------------------------------------

#: A plugin built like the bundled Granite 3 plugins: the Granite 3.1 example's release
#: declaration (public core names only), registered under a name of its own; its prompts
#: are the example's golden files.
GRANITE3_PLUGIN = (
    EXAMPLE_RELEASES.read_text(encoding="utf-8")
    + """

from granite_formatters import hookimpl


@hookimpl
def register_formatters(register):
    register("kit-31", release=GRANITE31)
"""
)

GRANITE3_CONTRACT = """
from granite_formatters.testing import load_golden_cases
from granite_formatters.testing.granite3 import Granite3InputContractTests

from gf_kit_mod import GRANITE31

class TestKit31Input(Granite3InputContractTests):
    release = GRANITE31
    model_id = "kit-31"
    golden_cases = load_golden_cases({golden!r})
    chat_template = {template!r}
    min_golden_cases = {count}
    thinking_mode = False
"""

#: The contract's tests for the 3.1 example's 24 golden cases: two per case, and the rest.
GRANITE3_TESTS = 2 * 24 + 39


def _granite3_contract(
    pytester: pytest.Pytester, *, template: str | None, golden: Path = EXAMPLE_GOLDEN
) -> pytest.RunResult:
    _write_dist(pytester.path, GRANITE3_PLUGIN)
    pytester.syspathinsert()
    pytester.makeconftest('pytest_plugins = ["granite_formatters.testing"]')
    count = len(list(golden.glob("*.json")))
    source = GRANITE3_CONTRACT.format(golden=str(golden), template=template, count=count)
    pytester.makepyfile(test_input=source)
    return pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider", "-rf")


def _official_31_template() -> Path:
    return oracle.require_shared() / "chat-templates" / oracle.TEMPLATES["3.1"]


def test_granite3_input_contract_passes_for_a_bundled_style_release(
    pytester: pytest.Pytester,
) -> None:
    result = _granite3_contract(pytester, template=str(_official_31_template()))
    result.assert_outcomes(passed=GRANITE3_TESTS)


def test_granite3_input_contract_compares_the_goldens_with_the_template(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    official = _official_31_template().read_text(encoding="utf-8")
    changed = official.replace("You are Granite, developed by IBM.", "You are Granite.")
    assert changed != official
    (tmp_path / "changed.jinja").write_text(changed, encoding="utf-8")
    result = _granite3_contract(pytester, template=str(tmp_path / "changed.jinja"))
    # The golden prompts with the default system prompt are the release's (they pass),
    # not the changed template's (they fail); those with a custom one pass both.
    drifted = sorted(
        path.name.split(".")[0]
        for path in EXAMPLE_GOLDEN.glob("*.prompt.txt")
        if "You are Granite, developed by IBM." in path.read_text(encoding="utf-8")
    )
    assert 12 < len(drifted) < 24
    result.assert_outcomes(passed=GRANITE3_TESTS - len(drifted), failed=len(drifted))
    failed = sorted(line.split()[1] for line in result.stdout.lines if line.startswith("FAILED "))
    assert failed == [
        f"test_input.py::TestKit31Input::test_golden_prompt_is_the_official_template_render[{name}]"
        for name in drifted
    ]


def test_granite3_input_contract_without_a_template_fails_saying_what_to_set(
    pytester: pytest.Pytester,
) -> None:
    result = _granite3_contract(pytester, template=None)
    result.assert_outcomes(passed=GRANITE3_TESTS - 24, failed=24)
    message = (
        "Granite3InputContractTests subclass TestKit31Input has no chat_template: set "
        'chat_template = Path(".../granite-3.x-8b-instruct.jinja") (the official chat '
        "template of your release, rendered as the reference for the golden prompts)"
    )
    assert_failed_with(
        result,
        {
            f"TestKit31Input.test_golden_prompt_is_the_official_template_render[{path.stem}]": (
                message
            )
            for path in EXAMPLE_GOLDEN.glob("*.json")
        },
    )


def test_granite3_input_contract_without_goldens_or_release_fails_saying_what_to_set(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    pytester.makepyfile(
        test_bare="""
from granite_formatters.testing.granite3 import Granite3InputContractTests

class TestBare(Granite3InputContractTests):
    pass
"""
    )
    pytester.makeconftest('pytest_plugins = ["granite_formatters.testing"]')
    result = pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider", "-rf")
    outcomes = result.parseoutcomes()
    assert outcomes.get("passed", 0) == 0
    assert outcomes["failed"] == GRANITE3_TESTS - 2 * 24 + 2
    no_processor = (
        "Granite3InputContractTests subclass TestBare has no release: "
        "set release = YOUR_RELEASE (your granite_formatters.Release)"
    )
    no_cases = (
        "Granite3InputContractTests subclass TestBare has no golden_cases: "
        "set golden_cases = load_golden_cases(folder) or [GoldenCase(...), ...]"
    )
    assert_failed_with(
        result,
        {
            "TestBare.test_golden_prompt[no-golden-cases]": no_cases,
            "TestBare.test_golden_prompt_is_the_official_template_render[no-golden-cases]": (
                no_cases
            ),
            "TestBare.test_golden_cases_cover_enough_requests": (
                "Granite3InputContractTests subclass TestBare has no golden_cases: "
                "set golden_cases = load_golden_cases(folder)"
            ),
            "TestBare.test_today_must_be_a_date": no_processor,
            "TestBare.test_sanitize_returns_a_clean_copy": no_processor,
            "TestBare.test_registered_formatter_uses_this_processor": (
                'Granite3InputContractTests subclass TestBare has no model_id: set model_id = "your-model-id"'
            ),
        },
    )


def test_granite3_input_contract_needs_dated_dict_cases(pytester: pytest.Pytester) -> None:
    pytester.makeconftest('pytest_plugins = ["granite_formatters.testing"]')
    pytester.makepyfile(
        test_cases="""
from granite_formatters.granite3 import Granite3ChatCompletion
from granite_formatters.testing import GoldenCase
from granite_formatters.testing.granite3 import Granite3InputContractTests

REQUEST = {"messages": [{"role": "user", "content": "Hi"}]}

class TestCases(Granite3InputContractTests):
    golden_cases = [
        GoldenCase("undated", REQUEST, "p"),
        GoldenCase("typed", Granite3ChatCompletion.model_validate(REQUEST), "p"),
    ]
"""
    )
    result = pytester.runpytest_subprocess(
        "-q", "-p", "no:cacheprovider", "-rf", "-k", "test_golden_prompt and not official"
    )
    result.assert_outcomes(failed=2)
    assert_failed_with(
        result,
        {
            "TestCases.test_golden_prompt[undated]": "golden case undated has no date: a "
            "Granite 3 prompt holds today's date, so each case must pin it "
            '("date": "YYYY-MM-DD")',
            "TestCases.test_golden_prompt[typed]": "golden case typed: the request must be a dict",
        },
    )


# -- the reference render ----------------------------------------------------------------


def _golden_requests() -> list[dict[str, Any]]:
    """Every distinct request of the repository's golden files (all releases)."""
    seen: dict[str, dict[str, Any]] = {}
    for path in sorted([*REPO.glob("tests/**/golden/**/*.json"), *EXAMPLE_GOLDEN.glob("*.json")]):
        data = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(data, dict) and isinstance(data.get("request"), dict):
            key = json.dumps([data["request"], data.get("add_generation_prompt", True)])
            seen.setdefault(key, data)
    return list(seen.values())


@oracle.needs_shared
@pytest.mark.parametrize("release", sorted(oracle.TEMPLATES))
def test_render_chat_template_is_the_shared_renderer(release: str) -> None:
    """The kit's render equals the reference tool's (which reproduces transformers) for
    every golden request of every release, or both refuse it."""
    import jinja2

    renderer = oracle.load_renderer()
    template = oracle.template_text(release)
    cases = _golden_requests()
    assert len(cases) > 100
    rendered = 0
    for data in cases:
        day = datetime.date.fromisoformat(data.get("date", "2025-04-16"))
        agp = data.get("add_generation_prompt", True)
        try:
            # (the kit hands every template text parts joined, as vLLM does for 3.x)
            expected = oracle.render(
                release, data["request"], agp, day, given=oracle.renderer_input
            )
        except (jinja2.TemplateError, TypeError) as error:
            # (TypeError: a filter given the wrong kind of value, such as Granite 4.2's
            # ``arguments|items`` on a JSON string)
            with pytest.raises(type(error)):
                render_chat_template(
                    template,
                    data["request"],
                    agp,
                    today=day,
                    special_tokens_map=renderer.GRANITE_SPECIAL_TOKENS,
                )
            continue
        actual = render_chat_template(
            template,
            data["request"],
            agp,
            today=day,
            special_tokens_map=renderer.GRANITE_SPECIAL_TOKENS,
        )
        assert actual == expected, data
        rendered += 1
    assert rendered > len(cases) // 2


def test_render_chat_template_passes_template_variables_as_transformers_does() -> None:
    pytest.importorskip("jinja2")
    template = (
        "{% for m in messages %}{{ m.role }}={{ m.content }}|{{ m.reasoning_content }}|"
        "{{ m.thinking }}|{{ 'name' in m }};{% endfor %}"
        "{{ tools | tojson }}{{ documents | tojson }}{{ add_generation_prompt }}"
        "{{ bos_token }}{{ flag }}{{ strftime_now('%Y-%m-%d %H:%M') }}"
        "{% set ns = namespace(val='<&>') %}{{ ns.val }}{{ dict(a=1) | tojson }}"
        "{% generation %}!{% endgeneration %}"
        "{% for x in [1, 2, 3] %}{% if x == 2 %}{% break %}{% endif %}{{ x }}{% endfor %}"
    )
    request = {
        "messages": [
            {
                "role": "user",
                "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "é"}],
            },
            {"role": "assistant", "content": "b", "reasoning": "r", "name": None},
        ],
        "extra_body": {"documents": [{"text": "d"}], "chat_template_kwargs": {"flag": "F"}},
        "chat_template_kwargs": {"bos_token": "<B>", "unset": None},
    }
    assert render_chat_template(
        template,
        request,
        False,
        today=datetime.date(2025, 1, 2),
        special_tokens_map={"bos_token": "<s>"},
    ) == (
        "user=a\né|||False;assistant=b|r|r|False;"
        'null[{"text": "d"}]False<B>2025-01-02 00:00<&>{"a": 1}!1'
    )


def test_render_chat_template_refuses_underscore_namespace_attributes() -> None:
    jinja2 = pytest.importorskip("jinja2")
    with pytest.raises(jinja2.exceptions.SecurityError):
        render_chat_template(
            "{% set ns = namespace(_x=1) %}", {"messages": []}, today=datetime.date(2025, 1, 1)
        )


def test_the_kit_imports_no_jinja2_until_a_render() -> None:
    code = (
        "import sys, granite_formatters.testing, granite_formatters.testing.granite3\n"
        "assert 'jinja2' not in sys.modules, 'jinja2 imported'\n"
        "import granite_formatters\n"
        "assert 'granite_formatters.testing' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
    cold = "import sys, granite_formatters; granite_formatters.get_formatter\nassert not [m for m in sys.modules if m.startswith(('granite_formatters.testing', 'pytest', 'jinja2'))]"
    subprocess.run([sys.executable, "-c", cold], check=True)
