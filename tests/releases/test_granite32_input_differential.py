"""Granite32InputProcessor against the official Granite 3.2 chat template, on random requests.

Every request drawn here is rendered by the official template (through the shared
renderer, see ``tests/support/oracle.py``) and by the processor; the two strings must be equal
under ``special_tokens="keep"``, and the other policies must behave as documented.
Requests the processor rejects by policy are drawn separately. Skipped when the
reference folder with the templates is not available.
"""

from __future__ import annotations

import datetime
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from granite_formatters_granite32.input import Granite32InputProcessor

from support import oracle
from support.granite3_support import (
    DATES,
    DIFFERENTIAL,
    assert_compatible_mode,
    assert_every_policy,
    assert_rejected,
    assert_same_on_both_paths,
    maybe_perturbed_requests,
    policy_violations,
    valid_requests,
)

RELEASE = "3.2"
PROCESSOR = Granite32InputProcessor()

pytestmark = oracle.needs_shared


@DIFFERENTIAL
@given(valid_requests(RELEASE, with_tokens=True), st.booleans(), DATES)
def test_prompt_equals_template_under_each_special_token_policy(
    request: dict[str, Any], agp: bool, today: datetime.date
) -> None:
    assert_every_policy(PROCESSOR, RELEASE, request, agp, today)


@settings(DIFFERENTIAL, max_examples=300)
@given(policy_violations(RELEASE))
def test_options_the_template_would_ignore_are_rejected(case: tuple[dict[str, Any], str]) -> None:
    assert_rejected(PROCESSOR, RELEASE, case)


@settings(DIFFERENTIAL, max_examples=300)
@given(policy_violations(RELEASE), st.booleans(), DATES)
def test_compatible_mode_renders_what_strict_rejects_as_the_template_does(
    case: tuple[dict[str, Any], str], agp: bool, today: datetime.date
) -> None:
    assert_compatible_mode(PROCESSOR, RELEASE, case, agp, today)


@DIFFERENTIAL
@given(
    maybe_perturbed_requests(RELEASE),
    st.booleans(),
    DATES,
    st.sampled_from(["error", "strip", "keep"]),
)
def test_plain_dicts_and_validated_requests_give_the_same_prompt_or_error(
    request: dict[str, Any], agp: bool, today: datetime.date, policy: str
) -> None:
    assert_same_on_both_paths(PROCESSOR, request, agp, today, policy)
