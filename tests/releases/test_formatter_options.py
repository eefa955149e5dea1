"""The formatting options are checked once, by the Formatter, with one wording for every release."""

from __future__ import annotations

import datetime
from typing import Any

import pytest

from granite_formatters import Release, get_formatter
from granite_formatters._errors import InvalidRequestError

from support.releases import Release as BundledRelease

HI = {"messages": [{"role": "user", "content": "Hi"}]}


@pytest.mark.parametrize(
    ("option", "value", "wording"),
    [
        ("today", "2025-01-01", "must be a datetime.date, not str"),
        ("today", 20250101, "must be a datetime.date, not int"),
        ("special_tokens", "drop", "must be 'error', 'strip' or 'keep', not 'drop'"),
        ("special_tokens", 1, "must be 'error', 'strip' or 'keep', not 1"),
        ("strict", "no", "must be True or False, not 'no'"),
        ("strict", None, "must be True or False, not None"),
        ("add_generation_prompt", 1, "must be True or False, not 1"),
        ("add_generation_prompt", "false", "must be True or False, not 'false'"),
    ],
)
def test_a_bad_option_is_refused_alike_by_every_release(
    release: BundledRelease, option: str, value: Any, wording: str
) -> None:
    formatter = get_formatter(release.model)
    with pytest.raises(InvalidRequestError) as info:
        formatter.format(HI, **{option: value})
    assert info.value.field == option
    assert str(info.value) == f"{option}: {wording}"
    with pytest.raises(InvalidRequestError) as again:
        formatter.apply_chat_template(HI["messages"], **{option: value})
    assert again.value.field == option


def test_valid_options_are_accepted_by_every_release(release: BundledRelease) -> None:
    formatter = get_formatter(release.model)
    for today in (None, datetime.date(2025, 1, 1), datetime.datetime(2025, 1, 1, 12)):
        for policy in (None, "error", "strip", "keep"):
            for strict in (True, False):
                prompt = formatter.format(HI, today=today, special_tokens=policy, strict=strict)
                assert "Hi" in prompt
    declared = getattr(formatter.input_processor, "release", None)
    end = declared.turns.end if isinstance(declared, Release) else "<|end_of_text|>\n"
    assert formatter.format(HI, add_generation_prompt=False).endswith("Hi" + end)


def test_stop_strings_come_from_the_release(release: BundledRelease) -> None:
    formatter = get_formatter(release.model)
    stops = formatter.stop_strings
    assert isinstance(stops, tuple) and all(isinstance(s, str) and s for s in stops)
    declared = getattr(formatter.input_processor, "release", None)
    if isinstance(declared, Release):
        assert stops == declared.stop_strings
        # (the end of a turn: <|end_of_text|> for 4.0/4.1, <|im_end|> for 4.2)
        assert stops == (declared.turns.end.rstrip("\n"),)
    else:
        assert stops == ()
