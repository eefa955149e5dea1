"""Both bundled releases side by side (the ``all`` tox envs install both plugins)."""

from __future__ import annotations

import datetime
import importlib.util
import io
import json
from collections.abc import Callable

import pytest

import granite_formatters
from granite_formatters import _cli as cli
from granite_formatters._plugins import PluginHost

pytestmark = pytest.mark.skipif(
    not (
        importlib.util.find_spec("granite_formatters_granite32")
        and importlib.util.find_spec("granite_formatters_granite33")
    ),
    reason="needs both bundled plugins installed (the 'all' tox envs)",
)

TODAY = datetime.date(2025, 4, 16)
REQUEST = {
    "model": "whatever",
    "temperature": 0.3,
    "messages": [
        {"role": "system", "content": "You answer in one sentence."},
        {"role": "user", "content": "What is the weather in Paris?"},
    ],
    "tools": [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "description": "Current weather for a city",
                "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
            },
        }
    ],
    "extra_body": {
        "documents": [{"doc_id": "d1", "title": "Paris", "text": "Paris is in France."}],
        "chat_template_kwargs": {"controls": {"length": "short"}},
    },
}


@pytest.fixture(autouse=True)
def installed_plugins(isolated_host_factory: Callable[..., PluginHost]) -> PluginHost:
    return isolated_host_factory(entry_points=True)


def test_models_lists_both_releases_with_aliases() -> None:
    out = io.StringIO()
    assert cli.main(["models", "--json"], stdout=out) == 0
    models = {m["id"]: m for m in json.loads(out.getvalue())}
    assert {
        "granite-3.2-2b-instruct",
        "granite-3.2-8b-instruct",
        "granite-3.2-8b-instruct-preview",
        "granite-3.3-2b-instruct",
        "granite-3.3-8b-instruct",
    } <= set(models)
    assert "ibm-granite/granite-3.2-8b-instruct" in models["granite-3.2-8b-instruct"]["aliases"]
    assert "granite3.3:8b" in models["granite-3.3-8b-instruct"]["aliases"]
    assert models["granite-3.2-8b-instruct"]["plugin"] == "granite-formatters-granite32"
    assert models["granite-3.3-8b-instruct"]["plugin"] == "granite-formatters-granite33"
    assert granite_formatters.plugin_errors() == []


def test_the_same_request_renders_under_each_release() -> None:
    v32 = granite_formatters.get_formatter("ibm-granite/granite-3.2-8b-instruct")
    v33 = granite_formatters.get_formatter("ibm-granite/granite-3.3-8b-instruct")
    p32 = v32.format(REQUEST, today=TODAY)
    p33 = v33.format(REQUEST, today=TODAY)
    system = "<|start_of_role|>system<|end_of_role|>You answer in one sentence.<|end_of_text|>\n"
    tail = (
        "<|start_of_role|>user<|end_of_role|>What is the weather in Paris?<|end_of_text|>\n"
        '<|start_of_role|>assistant {"length": "short"}<|end_of_role|>'
    )
    assert p32.startswith(system + "<|start_of_role|>tools<|end_of_role|>[\n")
    assert p33.startswith(system + "<|start_of_role|>available_tools<|end_of_role|>[\n")
    assert (
        "<|start_of_role|>documents<|end_of_role|>Document 0\nParis is in France.<|end_of_text|>\n"
        in p32
    )
    assert (
        '<|start_of_role|>document {"document_id": "d1"}<|end_of_role|>\nParis is in France.<|end_of_text|>\n'
        in p33
    )
    assert p32.endswith(tail) and p33.endswith(tail)


def test_each_release_parses_its_own_reasoning_format() -> None:
    thinking = {
        "messages": [{"role": "user", "content": "q"}],
        "chat_template_kwargs": {"thinking": True},
    }
    m32 = granite_formatters.get_formatter("granite3.2:8b").parse(
        "Here is my thought process:\nHmm.\nHere is my response:\nYes.", thinking
    )
    m33 = granite_formatters.get_formatter("granite3.3:8b").parse(
        "<think>Hmm.</think><response>Yes.</response>", thinking
    )
    assert (m32.reasoning_content, m32.content) == ("Hmm.", "Yes.")
    assert (m33.reasoning_content, m33.content) == ("Hmm.", "Yes.")


def test_demo_runs_for_both_releases() -> None:
    for model in ("granite-3.2-8b-instruct", "granite3.3:8b"):
        out = io.StringIO()
        assert cli.main(["demo", "--model", model], stdout=out) == 0
        text = out.getvalue()
        parsed = json.loads(text.split("== Parsed assistant message ==\n", 1)[1])
        assert (
            parsed["content"]
            == "The capital of France is Paris. About 2.1 million people live in the city."
        )
        for citation in parsed["citations"]:
            begin, end = citation["response_begin"], citation["response_end"]
            assert parsed["content"][begin:end] == citation["response_text"]
        assert [h["risk"] for h in parsed["hallucinations"]] == ["low"]
