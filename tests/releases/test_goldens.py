"""Each release renders its golden prompts byte for byte, for every model name of it.

The goldens were rendered from the official templates by tests/make_goldens.py
(rerun it with --check to see that they still match the templates). The Granite 3 and
4.0/4.1 goldens are also checked by their own modules.
"""

from __future__ import annotations

import warnings

from granite_formatters import get_formatter, list_models
from granite_formatters.testing import GoldenCase

from support.releases import Release

FAMILY = ("granite42",)


def test_golden_prompt(release: Release, golden_case: GoldenCase) -> None:
    formatter = get_formatter(release.model)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        prompt = formatter.format(
            golden_case.request,
            add_generation_prompt=golden_case.add_generation_prompt,
            special_tokens=golden_case.special_tokens,  # type: ignore[arg-type]
            strict=golden_case.strict,
        )
    assert prompt == golden_case.prompt


def test_every_model_of_the_release_renders_the_same(release: Release) -> None:
    reference = get_formatter(release.model)
    models = [m for m in list_models() if m.plugin.name == release.distribution]
    assert len(models) >= 3
    request = {"messages": [{"role": "user", "content": "Hi"}]}
    for model in models:
        assert get_formatter(model.model_id).format(request) == reference.format(request)
