"""Granite32InputProcessor against the official Granite 3.2 chat template, on random requests.

Every request drawn here is rendered by the official template (through the shared
renderer, see ``tests/oracle.py``) and by the processor; the two strings must be equal.
Skipped when the reference folder with the templates is not available.
"""

from __future__ import annotations

import datetime
from typing import Any

import oracle
import pytest
from granite3_support import (
    assert_default_policy,
    assert_matches_template,
    assert_strip_policy,
    policy_violations,
    valid_requests,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from granite_formatters.errors import InvalidRequestError
from granite_formatters_granite32.input import Granite32InputProcessor

RELEASE = "3.2"
PROCESSOR = Granite32InputProcessor()
DATES = st.dates(datetime.date(1000, 1, 1), datetime.date(9999, 12, 31))
DIFFERENTIAL = settings(
    max_examples=1000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

pytestmark = pytest.mark.skipif(oracle.shared_dir() is None, reason=oracle.skip_reason())


@DIFFERENTIAL
@given(valid_requests(RELEASE, with_tokens=True), st.booleans(), DATES)
def test_prompt_equals_template_under_each_special_token_policy(
    request: dict[str, Any], agp: bool, today: datetime.date
) -> None:
    # "keep": the template's prompt, byte for byte.
    assert_matches_template(PROCESSOR, RELEASE, request, agp, today)
    # "error" (default): the same prompt, or an error exactly when caller text has a token.
    assert_default_policy(PROCESSOR, RELEASE, request, agp, today)
    # "strip": the template's prompt for the request with every token deleted.
    assert_strip_policy(PROCESSOR, RELEASE, request, agp, today)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(policy_violations(RELEASE))
def test_options_the_template_would_ignore_are_rejected(case: tuple[dict[str, Any], str]) -> None:
    request, field = case
    with pytest.raises(InvalidRequestError) as caught:
        PROCESSOR.transform(request, special_tokens="keep")
    assert caught.value.field == field
    assert "Granite 3.2" in str(caught.value)
