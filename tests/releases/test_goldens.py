"""Each release renders its golden prompts byte for byte, with every model of it.

The goldens were rendered from the official templates by tests/make_goldens.py
(rerun it with --check to see that they still match the templates).
"""

from __future__ import annotations

import datetime
import warnings

import pytest

from granite_formatters import get_formatter, list_models
from granite_formatters._errors import DroppedInputWarning
from granite_formatters.testing import GoldenCase

from support import releases
from support.golden import release_cases
from support.release_data import GRANITE4_MODELS
from support.releases import Release


def _format(model: str, case: GoldenCase, today: datetime.date | None) -> str:
    """``case`` formatted by ``model``: no warning in strict mode, exactly one
    ``DroppedInputWarning`` in template-compatible mode (``strict=False``)."""
    formatter = get_formatter(model)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        prompt = formatter.format(
            case.request,
            add_generation_prompt=case.add_generation_prompt,
            today=today,
            special_tokens=case.special_tokens,  # type: ignore[arg-type]
            strict=case.strict,
        )
    expected = [] if case.strict else [DroppedInputWarning]
    assert [w.category for w in caught] == expected, (case.name, [str(w.message) for w in caught])
    return prompt


def test_golden_prompt(release: Release, golden_case: GoldenCase) -> None:
    assert _format(release.model, golden_case, golden_case.today) == golden_case.prompt


def models_of(release: Release) -> list[str]:
    """Every model id of ``release`` (a plugin of several releases lists them in
    ``support.release_data``)."""
    if release.version in GRANITE4_MODELS:
        return GRANITE4_MODELS[release.version]
    return [m.model_id for m in list_models() if m.plugin.name == release.distribution]


def test_every_model_of_the_release_renders_the_same(release: Release) -> None:
    reference = get_formatter(release.model)
    models = models_of(release)
    assert len(models) >= (2 if release.version == "3.3" else 3)  # 3.3: 2b and 8b
    request = {"messages": [{"role": "user", "content": "Hi"}]}
    for model in models:
        assert get_formatter(model).format(request) == reference.format(request)


#: (release, model) for every model of every release.
MODELS = [(r, model) for r in releases.RELEASES for model in models_of(r)]


@pytest.mark.parametrize(("release", "model"), MODELS, ids=[m for _, m in MODELS])
def test_every_model_renders_its_release_golden_prompts(release: Release, model: str) -> None:
    for case in release_cases(release):
        assert _format(model, case, case.today) == case.prompt, case.name


def test_the_40_and_41_goldens_have_the_same_cases_and_differ_where_expected() -> None:
    cases = {version: release_cases(releases.release(version)) for version in ("4.0", "4.1")}
    assert [c.name for c in cases["4.0"]] == [c.name for c in cases["4.1"]]
    assert 25 <= len(cases["4.0"]) <= 40
    prompts = {r: {c.name: c.prompt for c in cases[r]} for r in cases}
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


#: (release, golden case) of every release whose prompt shows no date.
UNDATED = [(r, c) for r in releases.without_feature("dated-prompt") for c in release_cases(r)]


@pytest.mark.parametrize(
    ("release", "case"), UNDATED, ids=[f"{r.version}-{c.name}" for r, c in UNDATED]
)
def test_today_has_no_effect(release: Release, case: GoldenCase) -> None:
    for today in (None, datetime.date(1999, 12, 31), datetime.date(2031, 2, 3)):
        assert _format(release.model, case, today) == case.prompt
