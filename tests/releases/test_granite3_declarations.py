"""Granite 3.2/3.3 as declarations (``GRANITE32``, ``GRANITE33``) rendered by the engine.

The release's golden prompts (``tests/golden/granite3/``, rendered from the official
templates by ``tests/make_goldens.py``) come out of ``GRANITE3x.input_processor()`` byte
for byte; the random-request differential checks against the templates run on it in
``test_input_differential.py``.
"""

from __future__ import annotations

import datetime
import warnings

import pytest

from granite_formatters._errors import DroppedInputWarning, InvalidRequestError
from granite_formatters.granite3 import Granite3ChatCompletion
from granite_formatters.granite3 import _dates as dates
from granite_formatters.testing import GoldenCase

from support.release_data import release_declaration
from support.releases import Release

APPLIES_TO = "dated-prompt"


def test_golden_prompt_rendered_by_the_engine(release: Release, golden_case: GoldenCase) -> None:
    processor = release_declaration(release.version).input_processor()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        prompt = processor.transform(
            golden_case.request,
            golden_case.add_generation_prompt,
            today=golden_case.today,
            special_tokens=golden_case.special_tokens,
            strict=golden_case.strict,
        )
    assert prompt == golden_case.prompt
    dropped = [w for w in caught if issubclass(w.category, DroppedInputWarning)]
    if golden_case.strict:
        assert dropped == []
    assert len(caught) == len(dropped)


def test_the_date_is_read_from_the_clock_at_each_call(
    release: Release, monkeypatch: pytest.MonkeyPatch
) -> None:
    processor = release_declaration(release.version).input_processor()
    request = {"messages": [{"role": "user", "content": "Hi"}]}
    days = iter([datetime.date(2025, 4, 6), datetime.date(2031, 12, 25)])
    monkeypatch.setattr(dates, "current_date", lambda: next(days))
    assert "Today's Date: April 06, 2025.\n" in processor.transform(request)
    assert "Today's Date: December 25, 2031.\n" in processor.transform(request)
    given = processor.transform(request, today=datetime.date(2024, 1, 2))
    assert "Today's Date: January 02, 2024.\n" in given


def test_today_must_be_a_date(release: Release) -> None:
    processor = release_declaration(release.version).input_processor()
    with pytest.raises(InvalidRequestError) as caught:
        processor.transform(
            {"messages": [{"role": "user", "content": "Hi"}]},
            today="2025-04-06",
        )
    assert caught.value.field == "today"


def test_a_system_message_alone_gets_no_generation_prompt(release: Release) -> None:
    processor = release_declaration(release.version).input_processor()
    prompt = processor.transform({"messages": [{"role": "system", "content": ""}]})
    assert prompt == "<|start_of_role|>system<|end_of_role|><|end_of_text|>\n"


def test_a_null_content_is_refused_except_for_an_assistant_turn_of_calls(release: Release) -> None:
    processor = release_declaration(release.version).input_processor()
    with pytest.raises(InvalidRequestError) as caught:
        processor.transform({"messages": [{"role": "user", "content": None}]})
    assert caught.value.field == "messages[0].content"
    assert f"Granite {release.version} chat template" in str(caught.value)
    call = {"function": {"name": "f", "arguments": '{"x": 1}'}}
    request = {
        "messages": [
            {"role": "user", "content": "q"},
            {"role": "assistant", "content": None, "tool_calls": [call]},
        ]
    }
    prompt = processor.transform(request, today=datetime.date(2025, 4, 6))
    assert prompt.endswith(
        '<|start_of_role|>assistant<|end_of_role|><|tool_call|>[{"name": "f", "arguments": '
        '{"x": 1}}]<|end_of_text|>\n<|start_of_role|>assistant<|end_of_role|>'
    )
    with pytest.raises(InvalidRequestError) as caught:
        processor.transform(request, strict=False)
    assert caught.value.field == "messages[1].content"


def test_a_granite3_typed_request_renders_as_its_dict_without_validating_again(
    release: Release, monkeypatch: pytest.MonkeyPatch
) -> None:
    processor = release_declaration(release.version).input_processor()
    request = {
        "messages": [{"role": "user", "content": "Hi"}],
        "documents": [{"doc_id": "1", "text": "Paris is the capital of France."}],
        "chat_template_kwargs": {"controls": {"citations": True, "length": "short"}},
    }
    day = datetime.date(2025, 4, 6)
    typed = Granite3ChatCompletion.model_validate(request)
    expected = processor.transform(request, today=day)

    def forbidden(*args: object, **kwargs: object) -> object:
        raise AssertionError("the typed request was validated or dumped again")

    for method in ("model_validate", "model_dump"):
        monkeypatch.setattr(Granite3ChatCompletion, method, forbidden)
    assert processor.transform(typed, today=day) == expected
    assert expected.endswith(
        '<|start_of_role|>assistant {"citations": true, "length": "short"}<|end_of_role|>'
    )
