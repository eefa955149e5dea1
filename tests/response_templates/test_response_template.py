"""The exported response templates against transformers' own parser (issue 40, item 1).

For every bundled release, every output of the corpus (support.response_corpus) is read
by our parser and by transformers' ``parse_response`` with the exported template and
the prompt as ``prefix``; each difference is listed in :data:`EXPECTED` with its reason
(the limits of a declarative template, documented in docs/runtimes.md), and an
unlisted difference or a listed case that agrees fails. Also: transformers' streaming
parser fed one character at a time equals its one-shot parse, and both spellings of
every template pass transformers' own validation.
"""

from __future__ import annotations

import importlib.util
import os
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st


def _transformers_installed() -> bool:
    # By its parser's module: transformers releases before 5.25 have no response
    # templates.
    try:
        return importlib.util.find_spec("transformers.utils.chat_parsing") is not None
    except ModuleNotFoundError:
        return False


if not _transformers_installed():
    if os.environ.get("CI") == "true":
        raise RuntimeError("tests/response_templates needs transformers installed (CI=true)")
    pytest.skip("transformers is not installed", allow_module_level=True)

from transformers.utils.chat_parsing.response_templates import load_response_template  # noqa: E402

from granite_formatters import get_formatter  # noqa: E402
from granite_formatters._export import SPELLINGS, response_template  # noqa: E402

from support.releases import RELEASES, Release  # noqa: E402
from support.response_corpus import OutputCase, corpus  # noqa: E402
from support.transformers_parse import ours, theirs, theirs_raw, theirs_streamed  # noqa: E402

TRUNCATED = "a truncated call: the template closes the region at the end of the output"
TRUNCATED_RAISES = "a truncated call: transformers' json parser raises on the cut JSON"
NOT_JSON = "a body that is not JSON: transformers raises where we keep the text as content"
CAST = "a JSON string for an integer parameter: transformers casts it by the tool schema"
MARKUP = "literal markup in a value: the template cuts the value at the close delimiter"
DROPPED = "<|end_of_text|> inside a value: we drop the token wherever it stands"
BARE_LIST = "a JSON list with no <|tool_call|> marker: only we read it (tools offered)"
TEXT_AFTER_LIST = "text after a <|tool_call|> list: the region runs to the end, JSON fails"
ARGS_STRING = "arguments written as a JSON string: we decode it, transformers keeps it"
PROSE_BETWEEN = (
    "prose between calls: each new content region overwrites the last one; arguments "
    "given as a JSON string stay a string"
)
RESPONSE_TAGS = "3.3's <response> tags: a template cannot remove them from the content"
STRAY_END = "a stray </think>: we drop it (noted); the template keeps it as content"
THINKING_OFF = "reasoning markers with thinking off: a template cannot read the option"

_3X = {
    "golden:tool_results:0": BARE_LIST,
    "hostile:truncated_call": TRUNCATED_RAISES,
    "hostile:markup_in_value": DROPPED,
    "hostile:integer_as_json_string": CAST,
    "hostile:bare_list": BARE_LIST,
    "hostile:not_json": NOT_JSON,
    "hostile:text_after_call": TEXT_AFTER_LIST,
    "hostile:reasoning_when_thinking_off": THINKING_OFF,
}
_4X = {
    "hostile:truncated_call": TRUNCATED_RAISES,
    "hostile:truncated_after_json": TRUNCATED,
    "hostile:markup_in_value": MARKUP,
    "hostile:integer_as_json_string": CAST,
    "hostile:arguments_as_string": ARGS_STRING,
    "hostile:not_json": NOT_JSON,
    "peer:vllm": PROSE_BETWEEN,
}

#: The known differences per release: case name -> reason.
EXPECTED: dict[str, dict[str, str]] = {
    "3.2": _3X,
    "3.3": {
        **_3X,
        "hostile:think_then_answer": RESPONSE_TAGS,
        "hostile:answer_in_response_tags": RESPONSE_TAGS,
        "hostile:stray_end": STRAY_END,
    },
    "4.0": _4X,
    "4.1": _4X,
    "4.2": {
        "hostile:truncated_call": TRUNCATED,
        "hostile:truncated_after_value": TRUNCATED,
        "hostile:markup_in_value": MARKUP,
    },
}


def _cases(release: Release) -> list[OutputCase]:
    formatter = get_formatter(release.model)
    assert formatter.release is not None
    turns: Any = formatter.release.turns
    return corpus(
        release,
        turns.header("assistant"),
        turns.end.strip(),
        lambda request: formatter.format(request),
    )


_INSTALLED = [release for release in RELEASES if release.installed]
_CORPUS = [(release, case) for release in _INSTALLED for case in _cases(release)]
_IDS = [f"{release.version}-{case.name}" for release, case in _CORPUS]


@pytest.mark.parametrize(("release", "case"), _CORPUS, ids=_IDS)
def test_parse_response_agrees_or_differs_as_listed(release: Release, case: OutputCase) -> None:
    template = response_template(release.model)
    expected_reason = EXPECTED[release.version].get(case.name)
    mine, theirs_reading = ours(release.model, case), theirs(template, case)
    if expected_reason is None:
        assert theirs_reading == mine, f"unexpected difference on {case.output!r}"
    else:
        assert theirs_reading != mine, f"listed as differing ({expected_reason}) but agrees"


@pytest.mark.parametrize("release", _INSTALLED, ids=[r.version for r in _INSTALLED])
def test_every_listed_difference_is_in_the_corpus(release: Release) -> None:
    names = {case.name for case in _cases(release)}
    assert set(EXPECTED[release.version]) <= names


@pytest.mark.parametrize(("release", "case"), _CORPUS, ids=_IDS)
def test_streaming_one_character_at_a_time_equals_one_shot(
    release: Release, case: OutputCase
) -> None:
    template = response_template(release.model)
    assert theirs_streamed(template, case) == theirs_raw(template, case)


@pytest.mark.parametrize("spelling", sorted(SPELLINGS))
@pytest.mark.parametrize("release", _INSTALLED, ids=[r.version for r in _INSTALLED])
def test_template_passes_transformers_validation(release: Release, spelling: Any) -> None:
    template = response_template(release.model, spelling=spelling)
    loaded = load_response_template(template)
    assert loaded.start_anchor_re is not None
    assert set(loaded.fields) >= {"content", "tool_calls"}
    assert loaded.implicit == "content"


def test_vllm_spelling_names_the_reasoning_field_thinking() -> None:
    (release,) = [r for r in _INSTALLED if r.version == "4.2"] or pytest.skip("4.2 not installed")
    case = OutputCase("x", "<|im_start|>assistant\n<think>\n", "Hm.\n</think>\nHi.", {})
    parsed = theirs_raw(response_template(release.model, spelling="vllm"), case)
    assert parsed == {"role": "assistant", "thinking": "Hm.", "content": "Hi."}


_PLAIN = st.text(
    st.characters(codec="utf-8", exclude_characters="<>|[{", exclude_categories=("Cs", "Cc")),
    max_size=40,
)


@settings(max_examples=40)
@given(text=_PLAIN)
@pytest.mark.parametrize("release", _INSTALLED, ids=[r.version for r in _INSTALLED])
def test_plain_answers_agree(release: Release, text: str) -> None:
    assume("Here" not in text and text.strip())
    (case,) = [c for c in _cases(release) if c.name == "hostile:plain_no_tools"]
    case = OutputCase("plain", case.prefix, text, case.request)
    if release.reasoning_syntax == "opened-think":
        case = OutputCase("plain", case.prefix, "</think>\n" + text, case.request)
    assert theirs(response_template(release.model), case) == ours(release.model, case)


@settings(max_examples=25)
@given(data=st.data())
@pytest.mark.parametrize("release", _INSTALLED, ids=[r.version for r in _INSTALLED])
def test_streaming_in_any_chunks_equals_one_shot(release: Release, data: st.DataObject) -> None:
    cases = _cases(release)
    case = data.draw(st.sampled_from(cases), label="case")
    cuts = sorted(data.draw(st.sets(st.integers(0, len(case.output))), label="cuts"))
    chunks = [case.output[a:b] for a, b in zip([0, *cuts], [*cuts, len(case.output)], strict=True)]
    template = response_template(release.model)
    assert theirs_streamed(template, case, chunks) == theirs_raw(template, case)


@pytest.mark.parametrize("release", _INSTALLED, ids=[r.version for r in _INSTALLED])
def test_the_docs_table_gives_the_measured_counts(release: Release) -> None:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "runtimes.md").read_text("utf-8")
    cases = _cases(release)
    listed = len(EXPECTED[release.version])
    row = re.search(
        rf"^\| {re.escape(release.version)} \| (\d+) \(.*?\) \| (\d+) \| (\d+) \|$", doc, re.M
    )
    assert row is not None, f"docs/runtimes.md has no row for {release.version}"
    assert [int(n) for n in row.groups()] == [len(cases), len(cases) - listed, listed]
