"""The Granite 3.1 prompts: 3.1-specific refusals and properties of the release's prompts.

The byte-for-byte golden prompts, the refusals every Granite 3 release shares, the date
and the special-token policies are checked by the contract tests (test_contract.py);
the differential test at the end compares generated requests with the official
template itself when the reference folder is available.
"""

from __future__ import annotations

import datetime
import functools
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from granite_formatters import (
    Formatter,
    InvalidRequestError,
    UnknownModelError,
    get_formatter,
    list_models,
    resolve_model,
)
from granite_formatters.granite3 import END_OF_ROLE, END_OF_TEXT, START_OF_ROLE
from hypothesis import given, settings
from hypothesis import strategies as st

from granite_formatters_granite31 import MODELS
from granite_formatters_granite31.releases import GRANITE31

import make_goldens  # tests/make_goldens.py (tests/ is on sys.path)

DAY = datetime.date(2025, 4, 16)
HI = [{"role": "user", "content": "Hi"}]
DOCUMENTS = [{"text": "Paris is the capital of France."}]
GOLDEN = Path(__file__).parent / "golden"


@pytest.fixture(scope="module")
def processor() -> Formatter[Any]:
    """A formatter of the release (the options checked, then the engine renders)."""
    return Formatter("granite-3.1", GRANITE31.input_processor(), GRANITE31.output_processor)


def golden(name: str) -> tuple[dict[str, Any], str]:
    data = json.loads((GOLDEN / f"{name}.json").read_text(encoding="utf-8"))
    return data["request"], (GOLDEN / f"{name}.prompt.txt").read_bytes().decode("utf-8")


# ----------------------------------------------------------------------------- thinking


@pytest.mark.parametrize(
    "request_",
    [
        {"messages": HI, "chat_template_kwargs": {"thinking": True}},
        {"messages": HI, "documents": DOCUMENTS, "chat_template_kwargs": {"thinking": True}},
        {"messages": HI, "extra_body": {"chat_template_kwargs": {"thinking": True}}},
    ],
    ids=["plain", "with_documents", "in_extra_body"],
)
def test_thinking_is_refused_because_31_has_no_thinking_mode(
    processor: Formatter[Any], request_: dict[str, Any]
) -> None:
    with pytest.raises(InvalidRequestError) as caught:
        processor.format(request_, today=DAY)
    assert caught.value.field == "chat_template_kwargs.thinking"
    assert str(caught.value) == (
        "chat_template_kwargs.thinking: Granite 3.1 has no 'thinking' option: its chat "
        "template does not read it (it has no thinking mode; set thinking to false). Pass "
        "strict=False to render what the official template renders."
    )


def test_thinking_false_is_the_plain_prompt(processor: Formatter[Any]) -> None:
    _, plain = golden("plain")
    request = {"messages": HI, "chat_template_kwargs": {"thinking": False}}
    assert processor.format(request, today=DAY) == plain


def test_the_release_has_no_thinking_option() -> None:
    assert GRANITE31.system_prompt is not None and GRANITE31.system_prompt.thinking is None
    assert GRANITE31.option("thinking") is None
    assert GRANITE31.name == "Granite 3.1"


# ----------------------------------------------------------------------------- controls


def test_unknown_control_values_are_refused(processor: Formatter[Any]) -> None:
    request = {"messages": HI, "chat_template_kwargs": {"controls": {"length": "medium"}}}
    with pytest.raises(InvalidRequestError) as caught:
        processor.format(request, today=DAY)
    assert caught.value.field == "chat_template_kwargs.controls.length"


# ----------------------------------------------------------------------------- models


def test_every_granite_31_model_gets_the_same_prompt() -> None:
    request, prompt = golden("citations_and_hallucinations")
    for model_id in MODELS:
        assert get_formatter(model_id).format(request, today=DAY) == prompt


@pytest.mark.parametrize(
    "name",
    [
        "granite-3.1-8b-base",  # a base model has no chat template
        "ibm-granite/granite-3.0-8b-instruct",  # another release, another template
        "granite3-dense:8b",
        "granite3.1-dense:4b",  # no such size
        "granite-3.1-moe-8b",
        "granite-3-8b-instruct",  # point release unknown
    ],
)
def test_names_of_other_models_do_not_reach_granite_31(name: str) -> None:
    with pytest.raises(UnknownModelError):
        get_formatter(name)


# ----------------------------------------------------------------------------- properties

TEXT = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=30)
ROLES = st.sampled_from(["user", "assistant", "tool", "system", "tool_response"])
MESSAGES = st.lists(st.fixed_dictionaries({"role": ROLES, "content": TEXT}), min_size=1, max_size=5)
WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Weather for a city — <b>&'\"",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    },
}
TOOLS = st.sampled_from([None, [], [WEATHER], [WEATHER, {"name": "météo", "parameters": {}}]])
DOCS = st.one_of(
    st.none(),
    st.lists(
        st.fixed_dictionaries({"text": TEXT}, optional={"doc_id": st.integers(0, 9)}),
        max_size=3,
    ),
)
CONTROLS = st.one_of(
    st.none(),
    st.fixed_dictionaries(
        {},
        optional={
            "citations": st.booleans(),
            "hallucinations": st.booleans(),
            "length": st.sampled_from(["short", "long"]),
            "originality": st.sampled_from(["extractive", "abstractive"]),
        },
    ),
)


@st.composite
def requests(draw: st.DrawFn) -> dict[str, Any]:
    request: dict[str, Any] = {"messages": draw(MESSAGES)}
    tools = draw(TOOLS)
    if tools is not None:
        request["tools"] = tools
    documents = draw(DOCS)
    if documents is not None:
        request["documents"] = documents
    options: dict[str, Any] = {}
    controls = draw(CONTROLS)
    if controls is not None:
        options["controls"] = controls
    if draw(st.booleans()):
        options["thinking"] = False
    if options:
        request["chat_template_kwargs"] = options
    return request


def refused(request: dict[str, Any]) -> bool:
    """Whether the processor must refuse the request (a true control it cannot honour)."""
    controls = request.get("chat_template_kwargs", {}).get("controls") or {}
    custom_system = request["messages"][0]["role"] == "system"
    wanted = controls.get("citations") or controls.get("hallucinations")
    return bool(wanted) and (custom_system or not request.get("documents"))


@settings(max_examples=300)
@given(requests(), st.booleans(), st.dates(datetime.date(2000, 1, 1), datetime.date(2099, 12, 31)))
def test_prompt_structure(request: dict[str, Any], agp: bool, day: datetime.date) -> None:
    processor = GRANITE31.input_processor()
    if refused(request):
        with pytest.raises(InvalidRequestError):
            processor.transform(request, agp, today=day, special_tokens="keep")
        return
    prompt = processor.transform(request, agp, today=day, special_tokens="keep")
    messages = request["messages"]
    custom_system = messages[0]["role"] == "system"
    assert prompt.startswith(START_OF_ROLE + "system" + END_OF_ROLE)
    if custom_system:
        assert prompt.startswith(
            START_OF_ROLE + "system" + END_OF_ROLE + messages[0]["content"] + END_OF_TEXT + "\n"
        )
    else:
        assert f"Today's Date: {day.strftime('%B %d, %Y')}." in prompt
    turns = messages[1:] if custom_system else messages
    tail = "".join(
        START_OF_ROLE + m["role"] + END_OF_ROLE + m["content"] + END_OF_TEXT + "\n" for m in turns
    )
    header = ""
    if agp and turns:
        controls = request.get("chat_template_kwargs", {}).get("controls")
        header = START_OF_ROLE + "assistant"
        if controls:
            header += " " + json.dumps(controls, ensure_ascii=False)
        header += END_OF_ROLE
    assert prompt.endswith(tail + header)
    assert (START_OF_ROLE + "tools" + END_OF_ROLE in prompt) == bool(request.get("tools"))


@settings(max_examples=200)
@given(requests(), st.booleans(), st.dates(datetime.date(2000, 1, 1), datetime.date(2099, 12, 31)))
def test_differential_against_the_official_template(
    request: dict[str, Any], agp: bool, day: datetime.date
) -> None:
    renderer, template = official_template()
    if refused(request):
        return
    data = {"request": request, "date": day.isoformat(), "add_generation_prompt": agp}
    expected = make_goldens.render_official(renderer, template, data)
    actual = GRANITE31.input_processor().transform(request, agp, today=day, special_tokens="keep")
    assert actual == expected


@functools.cache
def official_template() -> tuple[Any, str]:
    """The shared renderer and the official 3.1 template; skips when unavailable."""
    pytest.importorskip("jinja2", reason="jinja2 renders the official template")
    shared = make_goldens.require_shared()
    template = shared / "chat-templates" / make_goldens.TEMPLATE
    return make_goldens.load_renderer(shared), template.read_text(encoding="utf-8")


# ----------------------------------------------------------------------------- the hook


def test_the_hook_on_an_isolated_host(register_test_plugin: Callable[..., object]) -> None:
    """The hook module registered by hand, with no installed plugin visible."""
    import granite_formatters_granite31

    register_test_plugin(granite_formatters_granite31, name="granite31-under-test")
    assert sorted(m.model_id for m in list_models()) == sorted(MODELS)
    resolution = resolve_model("granite3.1-moe:3b-instruct-q4_K_M")
    assert resolution.model.model_id == "granite-3.1-3b-a800m-instruct"
    assert resolution.model.plugin.name == "granite31-under-test"
    _, prompt = golden("plain")
    assert get_formatter("granite3.1-moe").format({"messages": HI}, today=DAY) == prompt
