"""The Granite 4.0 and 4.1 input processors against the official templates, on random requests.

Every request drawn is rendered by the official template (through the shared renderer,
see ``tests/support/oracle.py``) and by the processor; the strings must be equal.
Requests in which the template silently drops something must raise
``InvalidRequestError`` naming the field in strict mode, and render exactly as the
template does (with one ``DroppedInputWarning``) with ``strict=False``. Skipped when the
reference folder with the templates is not available.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from granite_formatters.errors import DroppedInputWarning, InvalidRequestError
from granite_formatters_granite4.releases import GRANITE40, GRANITE41

from support import oracle
from support.granite4_strategies import DIFFERENTIAL, dropping_requests, valid_requests

PROCESSORS = {"4.0": GRANITE40.input_processor(), "4.1": GRANITE41.input_processor()}

# Skipped without the official templates, failed when CI is set.
pytestmark = oracle.needs_shared


def _check_valid(release: str, request: dict[str, Any], agp: bool) -> None:
    expected = oracle.render(release, request, agp)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert PROCESSORS[release].transform(request, agp) == expected
        assert PROCESSORS[release].transform(request, agp, strict=False) == expected


def _check_dropping(release: str, case: tuple[dict[str, Any], str], agp: bool) -> None:
    request, field = case
    with pytest.raises(InvalidRequestError) as info:
        PROCESSORS[release].transform(request, agp)
    assert info.value.field == field
    expected = oracle.render(release, request, agp)
    with pytest.warns(DroppedInputWarning) as record:
        assert PROCESSORS[release].transform(request, agp, strict=False) == expected
    assert len(record) == 1
    assert field in str(record[0].message)


@DIFFERENTIAL
@given(valid_requests(), st.booleans())
def test_granite40_prompt_equals_template(request: dict[str, Any], agp: bool) -> None:
    _check_valid("4.0", request, agp)


@DIFFERENTIAL
@given(valid_requests(), st.booleans())
def test_granite41_prompt_equals_template(request: dict[str, Any], agp: bool) -> None:
    _check_valid("4.1", request, agp)


@DIFFERENTIAL
@given(dropping_requests(), st.booleans())
def test_granite40_drops_are_rejected_or_rendered_like_the_template(
    case: tuple[dict[str, Any], str], agp: bool
) -> None:
    _check_dropping("4.0", case, agp)


@DIFFERENTIAL
@given(dropping_requests(), st.booleans())
def test_granite41_drops_are_rejected_or_rendered_like_the_template(
    case: tuple[dict[str, Any], str], agp: bool
) -> None:
    _check_dropping("4.1", case, agp)
