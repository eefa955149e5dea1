"""Body keys vLLM's chat endpoint reads, for every release.

``add_generation_prompt`` and ``continue_final_message`` in the request body count when
the call does not pass the argument (an argument given wins); ``continue_final_message``
leaves the final message open as transformers does; ``reasoning_effort`` in the body is
an option only for a release whose template reads it (tests/syntax covers one).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from granite_formatters import get_formatter
from granite_formatters._errors import InvalidRequestError

from support.releases import Release

HI = [{"role": "user", "content": "Hi"}]
PARTIAL = [*HI, {"role": "assistant", "content": "The answer is"}]


def test_the_body_add_generation_prompt_counts_unless_the_argument_is_given(
    release: Release,
) -> None:
    formatter = get_formatter(release.model)
    base = {"messages": HI}
    without = formatter.format(base, add_generation_prompt=False)
    assert without != formatter.format(base)
    body: dict[str, Any] = {**base, "add_generation_prompt": False}
    assert formatter.format(body) == without
    assert formatter.format(json.dumps(body)) == without
    assert formatter.format({**base, "extra_body": {"add_generation_prompt": False}}) == without
    # The argument wins; a null body value is the default.
    assert formatter.format(body, add_generation_prompt=True) == formatter.format(base)
    assert formatter.format({**base, "add_generation_prompt": None}) == formatter.format(base)
    with pytest.raises(InvalidRequestError) as info:
        formatter.format({**base, "add_generation_prompt": "no"})
    assert info.value.field == "add_generation_prompt"


def test_continue_final_message_leaves_the_final_message_open(release: Release) -> None:
    formatter = get_formatter(release.model)
    closed = formatter.format({"messages": PARTIAL}, add_generation_prompt=False)
    expected = closed[: closed.rindex("The answer is") + len("The answer is")]
    assert expected.endswith("The answer is") and len(expected) < len(closed)
    request = {"messages": PARTIAL}
    assert formatter.format(request, continue_final_message=True) == expected
    assert formatter.format({**request, "continue_final_message": True}) == expected
    assert formatter.apply_chat_template(PARTIAL, continue_final_message=True) == expected
    parts = [{"type": "text", "text": "The answer"}, {"type": "text", "text": "is"}]
    with_parts = formatter.format(
        {"messages": [*HI, {"role": "assistant", "content": parts}]},
        continue_final_message=True,
        strict=False,
    )
    assert with_parts.endswith("The answer\nis")
    # The argument wins over the body.
    assert formatter.format(
        {**request, "continue_final_message": True}, continue_final_message=False
    ) == formatter.format(request)


@pytest.mark.parametrize(
    ("body", "arguments"),
    [
        ({"continue_final_message": True}, {"add_generation_prompt": True}),
        ({"continue_final_message": True, "add_generation_prompt": True}, {}),
        ({"add_generation_prompt": True}, {"continue_final_message": True}),
        ({}, {"continue_final_message": True, "add_generation_prompt": True}),
        ({"continue_final_message": 1}, {}),
    ],
)
def test_continue_final_message_with_a_generation_prompt_is_an_error(
    release: Release, body: dict[str, Any], arguments: dict[str, Any]
) -> None:
    formatter = get_formatter(release.model)
    with pytest.raises(InvalidRequestError) as info:
        formatter.format({"messages": PARTIAL, **body}, **arguments)
    assert info.value.field == "continue_final_message"


def test_a_body_reasoning_effort_is_ignored_where_the_template_reads_none(
    release: Release,
) -> None:
    formatter = get_formatter(release.model)
    declared = formatter.release
    if declared is not None and declared.option("reasoning_effort") is not None:
        pytest.skip(f"Granite {release.version}'s template reads reasoning_effort")
    base = {"messages": HI}
    assert formatter.format({**base, "reasoning_effort": "low"}) == formatter.format(base)
