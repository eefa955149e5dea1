"""Each release's prompt against its official chat template, on random requests.

Every request drawn is rendered by the official template (through the shared renderer,
see ``tests/support/oracle.py``) and by the release's input processor; the strings must
be equal. Requests the template would silently drop part of must raise
``InvalidRequestError`` naming the field in strict mode, and render exactly as the
template does (with one ``DroppedInputWarning``) with ``strict=False``.

The requests are drawn by the strategies of the release's golden set (``goldens`` in its
plugin's declarations, :data:`STRATEGIES`): the Granite 3 templates read ``controls`` and
``thinking`` and are checked under each special-token policy, with the engine's
renderer of the release's declaration; the Granite 4.0/4.1
templates read none of those. Skipped when the reference folder with the templates is
not available (failed when CI is set).
"""

from __future__ import annotations

import datetime
import functools
import warnings
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from granite_formatters._errors import DroppedInputWarning, InvalidRequestError

from support import granite4_strategies, oracle
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
from support.release_data import release_declaration
from support.releases import RELEASES, Release

#: The golden sets whose requests this module can draw, by the checks they take:
#: ``"policies"`` (the Granite 3 strategies, each special-token policy and the typed path)
#: or ``"drops"`` (the Granite 4.0/4.1 strategies: valid requests and dropping requests).
STRATEGIES = {"granite3": "policies", "granite4": "drops"}

pytestmark = oracle.needs_shared


def _releases(kind: str) -> list[Any]:
    # A release whose plugin is absent is skipped by the conftest, with the reason.
    return [pytest.param(r, id=r.version) for r in RELEASES if STRATEGIES.get(r.goldens) == kind]


POLICIES = pytest.mark.parametrize("release", _releases("policies"))
DROPS = pytest.mark.parametrize("release", _releases("drops"))


@functools.cache
def _processor(release: Release) -> Any:
    return release_declaration(release.version).input_processor()


# --------------------------------------------------------------------------- Granite 3 sets


@POLICIES
@DIFFERENTIAL
@given(data=st.data(), agp=st.booleans(), today=DATES)
def test_prompt_equals_template_under_each_special_token_policy(
    release: Release, data: st.DataObject, agp: bool, today: datetime.date
) -> None:
    request = data.draw(valid_requests(release.version, with_tokens=True), label="request")
    assert_every_policy(_processor(release), release.version, request, agp, today)


@POLICIES
@settings(DIFFERENTIAL, max_examples=300)
@given(data=st.data())
def test_options_the_template_would_ignore_are_rejected(
    release: Release, data: st.DataObject
) -> None:
    case = data.draw(policy_violations(release.version), label="case")
    assert_rejected(_processor(release), release.version, case)


@POLICIES
@settings(DIFFERENTIAL, max_examples=300)
@given(data=st.data(), agp=st.booleans(), today=DATES)
def test_compatible_mode_renders_what_strict_rejects_as_the_template_does(
    release: Release, data: st.DataObject, agp: bool, today: datetime.date
) -> None:
    case = data.draw(policy_violations(release.version), label="case")
    assert_compatible_mode(_processor(release), release.version, case, agp, today)


@POLICIES
@DIFFERENTIAL
@given(
    data=st.data(),
    agp=st.booleans(),
    today=DATES,
    policy=st.sampled_from(["error", "strip", "keep"]),
)
def test_plain_dicts_and_validated_requests_give_the_same_prompt_or_error(
    release: Release,
    data: st.DataObject,
    agp: bool,
    today: datetime.date,
    policy: str,
) -> None:
    request = data.draw(maybe_perturbed_requests(release.version), label="request")
    assert_same_on_both_paths(_processor(release), request, agp, today, policy)


# --------------------------------------------------------------------------- Granite 4 set


@DROPS
@granite4_strategies.DIFFERENTIAL
@given(granite4_strategies.valid_requests(), st.booleans())
def test_prompt_equals_template_in_both_modes(
    release: Release, request: dict[str, Any], agp: bool
) -> None:
    processor = _processor(release)
    expected = oracle.render(release.version, request, agp)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert processor.transform(request, agp) == expected
        assert processor.transform(request, agp, strict=False) == expected


@DROPS
@granite4_strategies.DIFFERENTIAL
@given(granite4_strategies.dropping_requests(), st.booleans())
def test_drops_are_rejected_or_rendered_like_the_template(
    release: Release, case: tuple[dict[str, Any], str], agp: bool
) -> None:
    processor = _processor(release)
    request, field = case
    with pytest.raises(InvalidRequestError) as info:
        processor.transform(request, agp)
    assert info.value.field == field
    expected = oracle.render(release.version, request, agp)
    with pytest.warns(DroppedInputWarning) as record:
        assert processor.transform(request, agp, strict=False) == expected
    assert len(record) == 1
    assert field in str(record[0].message)
