"""Every Granite 4 model renders its release's golden prompts byte for byte.

The goldens were rendered from the official templates by tests/make_goldens.py
(rerun it with --check to see that they still match the templates).
"""

from __future__ import annotations

import datetime
import warnings

import pytest

from granite_formatters import get_formatter
from granite_formatters.testing import GoldenCase

from support.golden import release_cases
from support.release_data import GRANITE4_MODELS as MODELS

CASES = {release: release_cases("granite4", release) for release in ("4.0", "4.1")}


def test_each_release_has_25_to_40_cases_and_they_differ_where_expected() -> None:
    assert [c.name for c in CASES["4.0"]] == [c.name for c in CASES["4.1"]]
    assert 25 <= len(CASES["4.0"]) <= 40
    prompts = {r: {c.name: c.prompt for c in CASES[r]} for r in CASES}
    # 4.0 prints its default system message where 4.1 prints no system turn.
    assert prompts["4.1"]["hi"] == (
        "<|start_of_role|>user<|end_of_role|>Hi<|end_of_text|>\n"
        "<|start_of_role|>assistant<|end_of_role|>"
    )
    assert prompts["4.0"]["hi"] == (
        "<|start_of_role|>system<|end_of_role|>You are a helpful assistant. Please ensure "
        "responses are professional, accurate, and safe.<|end_of_text|>\n" + prompts["4.1"]["hi"]
    )
    assert prompts["4.0"]["tools_openai"] == prompts["4.1"]["tools_openai"]


@pytest.mark.parametrize(
    ("release", "model"), [(r, m) for r, models in MODELS.items() for m in models]
)
def test_goldens(release: str, model: str) -> None:
    formatter = get_formatter(model)
    for case in CASES[release]:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            prompt = formatter.format(
                case.request,
                add_generation_prompt=case.add_generation_prompt,
                special_tokens=case.special_tokens,  # type: ignore[arg-type]
            )
        assert prompt == case.prompt, case.name


@pytest.mark.parametrize("case", CASES["4.0"], ids=lambda c: c.name)
def test_today_has_no_effect(case: GoldenCase) -> None:
    formatter = get_formatter("granite-4.0-h-small")
    for today in (None, datetime.date(1999, 12, 31), datetime.date(2031, 2, 3)):
        prompt = formatter.format(
            case.request,
            add_generation_prompt=case.add_generation_prompt,
            today=today,
            special_tokens=case.special_tokens,  # type: ignore[arg-type]
        )
        assert prompt == case.prompt
