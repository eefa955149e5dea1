"""Growth tests: parse time for N, 4N and 16N of each pathological output shape.

Issue 12 items 2, 3 and 12: tool-call runs, citation tags against a growing document,
citation lines and newline-dense output must all parse in linear time, in batch and
in 16-character streaming. Ratios only (best of a few runs), never absolute times.
"""

from __future__ import annotations

import importlib.util
from typing import Any

import pytest

from support import robustness

#: Sizes chosen so that the smallest run takes a few milliseconds.
BIG_N = {
    "newlines",
    "short lines",
    "think markers",
    "header-like lines",
    "plugin tokens",
    "a quote left open over many lines",
}


def _cases() -> list[Any]:
    cases = []
    for model, plugin, extra in (
        ("granite-3.2-8b-instruct", "granite32", robustness.co_shapes()),
        ("granite-3.3-8b-instruct", "granite33", robustness.cite_shapes()),
    ):
        for shape, make in {**robustness.COMMON_SHAPES, **extra}.items():
            found = importlib.util.find_spec(f"granite_formatters_{plugin}") is not None
            marks = [] if found else [pytest.mark.skip(reason=f"{plugin} not installed")]
            cases.append(pytest.param(model, make, 2000 if shape in BIG_N else 400,
                                      id=f"{plugin}-{shape}", marks=marks))  # fmt: skip
    return cases


@pytest.mark.parametrize(("model", "make", "n"), _cases())
def test_parse_time_grows_linearly(model: str, make: Any, n: int) -> None:
    robustness.check_linear_growth(model, make, n)
