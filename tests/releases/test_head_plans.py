"""The dated layout's head plans (issue 42, item 2): what the date, the options and the
request's shape decide (the default system turn, the options the template would not
honour, the generation prompt) is planned once per option set and reused; every call
still writes, checks and warns exactly as a processor without plans does.

Each call of a sequence that changes one thing at a time (the date, the options in the
same dict, a caller's system message, tools appearing, documents leaving, the policy, a
typed request's controls) is made twice on one processor, whose plans and option sets
then answer, and compared with a new processor's answer (prompt, warnings, or error).
"""

from __future__ import annotations

import copy
import datetime
import warnings
from collections.abc import Callable
from typing import Any

import pytest

from granite_formatters import get_formatter
from granite_formatters._errors import DroppedInputWarning, InvalidRequestError

from support.releases import Release

APPLIES_TO = "dated-prompt"

DAY = datetime.date(2025, 4, 16)
OTHER_DAY = datetime.date(2026, 1, 2)

#: What a call answered: ("prompt", text, warnings) or ("error", message).
Answer = tuple[Any, ...]


def _new(release: Release) -> Any:
    """A new input processor of ``release`` (no plans, no option sets kept)."""
    made = get_formatter(release.model).input_processor.release
    assert made is not None
    return made.input_processor()


def _answer(processor: Any, request: Any, **options: Any) -> Answer:
    """What ``processor.transform`` answers for ``request``."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", DroppedInputWarning)
        try:
            prompt = processor.transform(request, **options)
        except InvalidRequestError as exc:
            return ("error", str(exc))
    return ("prompt", prompt, [str(w.message) for w in caught])


def _request(**changes: Any) -> dict[str, Any]:
    request: dict[str, Any] = {
        "messages": [
            {"role": "user", "content": "Which districts had incidents?"},
            {"role": "assistant", "content": "The northern ones."},
            {"role": "user", "content": "With sources, please."},
        ],
        "documents": [{"doc_id": "d1", "title": "T", "text": "The northern district."}],
        "chat_template_kwargs": {"controls": {"citations": True, "hallucinations": True}},
    }
    request.update(changes)
    return request


def _sequence(release: Release) -> list[tuple[Callable[[], dict[str, Any]], dict[str, Any]]]:
    """(request factory, format options), each changing one thing from the one before."""
    token = "<|end_of_text|>"
    system = {"role": "system", "content": "Be brief."}
    tools = [{"type": "function", "function": {"name": "f", "parameters": {}}}]
    base = _request()
    return [
        (_request, {"today": DAY}),
        (_request, {"today": OTHER_DAY}),
        (lambda: {**_request(), "documents": None}, {"today": DAY, "strict": False}),
        (lambda: {**_request(), "documents": None}, {"today": DAY}),
        (lambda: _request(messages=[system, *base["messages"]]), {"today": DAY}),
        (
            lambda: _request(messages=[system, *base["messages"]]),
            {"today": DAY, "strict": False},
        ),
        (lambda: _request(tools=tools), {"today": DAY}),
        (lambda: _request(chat_template_kwargs=None), {"today": DAY}),
        (lambda: _request(chat_template_kwargs={"thinking": True}), {"today": DAY}),
        (
            lambda: _request(chat_template_kwargs={"thinking": True}),
            {"today": DAY, "strict": False},
        ),
        (
            lambda: _request(chat_template_kwargs={"thinking": True}, documents=None),
            {"today": DAY},
        ),
        (
            lambda: _request(messages=[{**system, "role": f"sys{token}tem"}, *base["messages"]]),
            {"today": DAY, "special_tokens": "strip"},
        ),
        (
            lambda: _request(messages=[{**system, "role": f"sys{token}tem"}, *base["messages"]]),
            {"today": DAY},
        ),
        (lambda: _request(messages=[system]), {"today": DAY}),
        (lambda: _request(messages=[system], documents=None), {"today": DAY}),
        (_request, {"today": DAY, "add_generation_prompt": False}),
        (_request, {}),  # (the clock's date)
        (_request, {"today": DAY}),
    ]


def test_a_planned_head_writes_what_an_unplanned_one_writes(release: Release) -> None:
    processor = _new(release)
    for _ in range(2):  # (the second pass: every plan and option set kept)
        for make, options in _sequence(release):
            expected = _answer(_new(release), make(), **options)
            assert _answer(processor, make(), **options) == expected, options


def test_options_changed_in_the_same_dict_are_read_again(release: Release) -> None:
    processor = _new(release)
    request = _request()
    controls = request["chat_template_kwargs"]["controls"]
    changes: tuple[Callable[[], object], ...] = (
        lambda: controls.update(hallucinations=False),
        lambda: controls.pop("citations"),
        lambda: controls.update(citations=1),  # (refused: not a bool)
        lambda: controls.update(citations=True, hallucinations=True),
        lambda: request["chat_template_kwargs"].update(thinking=True),
        lambda: request["chat_template_kwargs"].update(thinking=False),
    )
    for change in changes:
        change()
        for strict in (True, False):
            fresh = _new(release)
            expected = _answer(fresh, copy.deepcopy(request), today=DAY, strict=strict)
            assert _answer(processor, request, today=DAY, strict=strict) == expected


@pytest.mark.parametrize("strict", [True, False])
def test_a_typed_request_s_options_are_read_at_each_call(release: Release, strict: bool) -> None:
    from granite_formatters.granite3._types import Granite3ChatCompletion

    processor = _new(release)
    typed = Granite3ChatCompletion.model_validate(_request())
    assert typed.chat_template_kwargs is not None
    controls = typed.chat_template_kwargs.controls
    assert isinstance(controls, dict)
    changes: tuple[Callable[[], object], ...] = (
        lambda: None,
        lambda: controls.update(hallucinations=False),
        lambda: controls.pop("citations"),
        lambda: setattr(typed.chat_template_kwargs, "thinking", True),
        lambda: controls.clear(),
        lambda: setattr(typed.chat_template_kwargs, "controls", None),
        lambda: setattr(typed.chat_template_kwargs, "thinking", False),
    )
    for change in changes:
        change()
        for _ in range(2):
            fresh = _new(release)
            expected = _answer(fresh, typed, today=DAY, strict=strict)
            assert _answer(processor, typed, today=DAY, strict=strict) == expected


def test_the_same_options_are_one_option_set_whoever_holds_them(release: Release) -> None:
    """Equal options are one kept option set, whether their inner dicts are literals or
    also held elsewhere (marshal from version 3 flags an object with other references,
    so the same options gave other bytes and were kept again)."""
    processor = _new(release)
    held = {"citations": True, "hallucinations": True}
    shared = _request(chat_template_kwargs={"controls": held})
    fresh = _request(chat_template_kwargs={"controls": {"citations": True, "hallucinations": True}})
    first = _answer(processor, shared, today=DAY)
    assert _answer(processor, fresh, today=DAY) == first
    assert len(processor._option_sets) == 1
