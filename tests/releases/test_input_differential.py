"""Each Granite 3 input processor against its official chat template, on random requests.

Each test runs twice per release: with the release's processor class and with the
engine's renderer of its declaration (``GRANITE32``/``GRANITE33``).

Every request drawn here is rendered by the official template (through the shared
renderer, see ``tests/support/oracle.py``) and by the processor; the two strings must be equal
under ``special_tokens="keep"``, and the other policies must behave as documented.
Requests the processor rejects by policy are drawn separately. Skipped when the
reference folder with the templates is not available.
"""

from __future__ import annotations

import datetime
import functools
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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
from support.release_data import input_processor_class, release_declaration
from support.releases import Release

APPLIES_TO = "controls"

pytestmark = [
    oracle.needs_shared,
    pytest.mark.parametrize("renderer", ["processor", "release"]),
]


@functools.cache
def _processor(release: Release, renderer: str) -> Any:
    if renderer == "release":
        return release_declaration(release.version).input_processor()
    return input_processor_class(release.version)()


@DIFFERENTIAL
@given(data=st.data(), agp=st.booleans(), today=DATES)
def test_prompt_equals_template_under_each_special_token_policy(
    renderer: str, release: Release, data: st.DataObject, agp: bool, today: datetime.date
) -> None:
    request = data.draw(valid_requests(release.version, with_tokens=True), label="request")
    assert_every_policy(_processor(release, renderer), release.version, request, agp, today)


@settings(DIFFERENTIAL, max_examples=300)
@given(data=st.data())
def test_options_the_template_would_ignore_are_rejected(
    renderer: str, release: Release, data: st.DataObject
) -> None:
    case = data.draw(policy_violations(release.version), label="case")
    assert_rejected(_processor(release, renderer), release.version, case)


@settings(DIFFERENTIAL, max_examples=300)
@given(data=st.data(), agp=st.booleans(), today=DATES)
def test_compatible_mode_renders_what_strict_rejects_as_the_template_does(
    renderer: str, release: Release, data: st.DataObject, agp: bool, today: datetime.date
) -> None:
    case = data.draw(policy_violations(release.version), label="case")
    assert_compatible_mode(_processor(release, renderer), release.version, case, agp, today)


@DIFFERENTIAL
@given(
    data=st.data(),
    agp=st.booleans(),
    today=DATES,
    policy=st.sampled_from(["error", "strip", "keep"]),
)
def test_plain_dicts_and_validated_requests_give_the_same_prompt_or_error(
    renderer: str,
    release: Release,
    data: st.DataObject,
    agp: bool,
    today: datetime.date,
    policy: str,
) -> None:
    request = data.draw(maybe_perturbed_requests(release.version), label="request")
    assert_same_on_both_paths(_processor(release, renderer), request, agp, today, policy)
