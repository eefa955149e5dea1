"""Releases with a reasoning syntax (Granite 4.2) against their official templates, on
random requests across every feature (see ``support.chatml_strategies``).

Skipped when the reference folder with the templates is not available, failed in CI.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from granite_formatters import get_formatter

from support import oracle
from support.chatml_strategies import DIFFERENTIAL, oracle_request, valid_requests
from support.releases import RELEASES

REASONING = [r for r in RELEASES if r.family == "granite42"]

pytestmark = oracle.needs_shared


@pytest.mark.parametrize("release", REASONING, ids=lambda r: r.version)
@DIFFERENTIAL
@given(request=valid_requests(), agp=st.booleans())
def test_prompt_equals_template(release: Any, request: dict[str, Any], agp: bool) -> None:
    expected = oracle.render(release.version, oracle_request(request), agp)
    formatter = get_formatter(release.model)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert formatter.format(request, add_generation_prompt=agp) == expected
        assert formatter.format(request, add_generation_prompt=agp, strict=False) == expected
