"""A template's behaviour against our formatter: the probe set through the official
templates, their variants and synthetic patches."""

from __future__ import annotations

import re

import pytest

from granite_formatters._doctor.behaviour import (
    RELEASE_MODELS,
    Capabilities,
    capabilities,
    compare_behaviour,
    render_template,
)
from granite_formatters._doctor.probes import PROBES, Probe

from .conftest import official

pytest.importorskip("jinja2", reason="rendering a chat template needs jinja2 (the doctor extra)")

ALL = len(PROBES)
THINKING_DEFAULT = (
    "{%- set enable_thinking = enable_thinking if enable_thinking is defined else True %}"
)


@pytest.mark.parametrize(
    ("release", "template"),
    [
        ("3.2", "granite-3.2-8b-instruct.jinja"),
        ("3.3", "granite-3.3-8b-instruct.jinja"),
        ("4.0", "granite-4.0.jinja"),
        ("4.1", "granite-4.1.jinja"),
        ("4.2", "granite-4.2.jinja"),
    ],
)
def test_each_official_template_renders_every_probe_as_its_release(
    release: str, template: str
) -> None:
    text = official(template)
    rendered: dict[str, str] = {}
    counts = {
        version: len(compare_behaviour(text, model, rendered=rendered).differing)
        for version, model in RELEASE_MODELS.items()
    }
    assert counts[release] == 0
    assert all(count > 0 for version, count in counts.items() if version != release)


def test_the_probe_set_covers_every_feature() -> None:
    names = {probe.name for probe in PROBES}
    assert {
        "tools",
        "documents",
        "thinking_on",
        "thinking_off",
        "tool_call_history",
        "controls",
        "continue_final_message",
    } <= names
    assert len(names) == ALL


def test_a_changed_default_differs_where_the_option_is_not_given() -> None:
    text = official("granite-4.2.jinja").replace(
        THINKING_DEFAULT, THINKING_DEFAULT.replace("else True", "else False")
    )
    behaviour = compare_behaviour(text, "granite-4.2-8b", rendered={})
    assert behaviour.summary == f"8 of {ALL} probe prompts differ"
    assert behaviour.differing == (
        "hi",
        "system",
        "conversation",
        "tools",
        "tools_with_system",
        "tool_call_history",
        "documents",
        "controls",
    )
    first = behaviour.diffs[0]
    assert first[:2] == (
        "--- granite-formatters granite-4.2-8b (hi)",
        "+++ this template (hi)",
    )
    assert len(behaviour.diffs) == 3


def test_a_dropped_tojson_argument_changes_the_tool_prompts_only() -> None:
    text = official("granite-3.3-8b-instruct.jinja").replace("tojson(indent=4)", "tojson")
    behaviour = compare_behaviour(text, "granite-3.3-8b-instruct", rendered={})
    assert behaviour.differing == (
        "tools",
        "tools_with_system",
        "tool_call_history",
        "thinking_with_tools",
    )
    diff = behaviour.diffs[0]
    assert "-<|start_of_role|>available_tools<|end_of_role|>[" in diff
    assert "-    {" in diff
    assert (
        '+<|start_of_role|>available_tools<|end_of_role|>[{"type": "function", "function": '
        '{"name": "get_current_weather", "description": "Get the current weather for a city", '
        '"parameters": {"type": "object", "properties": {"city": {"type": "string", '
        '"description": "The city, e.g. Boston"}, "unit": {"type": "string", "enum": '
        '["celsius", "fahrenheit"]}}, "required": ["city"]}}}]<|end_of_text|>'
    ) in diff


@pytest.mark.parametrize("template", ["granite-3.3-8b-instruct.jinja", "granite-4.2.jinja"])
def test_crlf_and_reindented_tags_render_the_same(template: str) -> None:
    text = official(template)
    model = "granite-4.2-8b" if "4.2" in template else "granite-3.3-8b-instruct"
    for patched in (
        text.replace("\n", "\r\n"),
        re.sub(r"^(\s*)\{%", r"\1    {%", text, flags=re.M),
    ):
        assert patched != text
        assert compare_behaviour(patched, model, rendered={}).differing == ()


def test_the_variants() -> None:
    launch = official("variants/granite-4.2.rev-launch-no-reasoning-effort.jinja")
    assert compare_behaviour(launch, "granite-4.2-8b", rendered={}).differing == (
        "reasoning_effort",
    )
    first = official("variants/granite-4.0.rev-2025-10-no-default-system.jinja")
    assert compare_behaviour(first, "granite-4.1-8b", rendered={}).differing == ()
    llama = official("variants/granite-3.3-2b-instruct.llama-cpp-modified.jinja")
    behaviour = compare_behaviour(llama, "granite-3.3-8b-instruct", rendered={})
    assert len(behaviour.differing) == ALL - 2
    assert "hi" in behaviour.differing


def test_capabilities() -> None:
    assert capabilities(official("granite-4.2.jinja")) == Capabilities(True, "enable_thinking")
    assert capabilities(official("granite-3.3-8b-instruct.jinja")) == Capabilities(True, "thinking")
    assert capabilities(official("granite-4.1.jinja")) == Capabilities(True, None)
    assert capabilities("{% for m in messages %}{{ m.content }}{% endfor %}") == Capabilities(
        False, None
    )


def test_a_template_error_is_behaviour_not_a_crash() -> None:
    broken = "{{ raise_exception('no tools here') if tools else messages[0].content }}"
    rendered: dict[str, str] = {}
    behaviour = compare_behaviour(broken, "granite-4.2-8b", rendered=rendered)
    assert len(behaviour.differing) == ALL
    assert rendered["tools"] == "<the template raised TemplateError: no tools here>"
    assert rendered["hi"] == "Hi"
    unparsable: dict[str, str] = {}
    assert (
        len(compare_behaviour("{% if %}", "granite-4.2-8b", rendered=unparsable).differing) == ALL
    )
    assert unparsable["hi"].startswith("<the template raised TemplateSyntaxError: ")


def test_continue_final_message_is_transformers_cut() -> None:
    probe = Probe(
        "c",
        {"messages": [{"role": "user", "content": "Q"}, {"role": "assistant", "content": "A1 "}]},
        add_generation_prompt=False,
        continue_final_message=True,
    )
    template = "{% for m in messages %}<{{ m.role }}>{{ m.content }}</{{ m.role }}>{% endfor %}"
    assert render_template(template, probe) == "<user>Q</user><assistant>A1"
    with pytest.raises(ValueError, match="final message's text is not in the rendered prompt"):
        render_template("{{ messages[0].content }}", probe)
