"""Each release's prompt for hand-written requests: exact strings, errors, options.

The rows are in :mod:`support.input_cases`, by release (the goldens in
``tests/golden/`` cover the official templates' own examples; the differential tests
random requests). Every row is formatted through ``get_formatter`` for the release's
model, on 2025-04-06 where the prompt is dated.
"""

from __future__ import annotations

import json
import re
import warnings
from typing import Any

import attrs
import pytest

from granite_formatters import Release as ReleaseDeclaration
from granite_formatters import get_formatter
from granite_formatters._errors import DroppedInputWarning, InvalidRequestError
from granite_formatters._types import ChatCompletion, coerce_request
from granite_formatters.granite3._types import Granite3ChatCompletion
from granite_formatters.syntax import DatedLayout

from support import oracle
from support.golden import release_cases
from support.granite3_support import DAY, HI, QUESTION
from support.input_cases import (
    DECLARED,
    GEN,
    INPUT_CASES,
    MISSING_DOCUMENT_IDS,
    SPECIAL_TOKENS,
    USER_HI,
    Pair,
    Prompt,
    Refused,
)
from support.release_data import DECLARATIONS, release_declaration
from support.releases import RELEASES, Release


def APPLIES_TO(release: Release) -> bool:
    """The releases with rows in :data:`support.input_cases.INPUT_CASES`."""
    return release.version in INPUT_CASES


def _format(release: Release, request: Any, options: dict[str, Any]) -> str:
    return get_formatter(release.model).format(request, **{"today": DAY, **options})


def _rows(kind: type) -> list[Any]:
    return [
        pytest.param(r, case, id=f"{r.version}-{case.name}")
        for r in RELEASES
        if APPLIES_TO(r)
        for case in INPUT_CASES[r.version]
        if isinstance(case, kind)
    ]


@pytest.mark.parametrize(("release", "case"), _rows(Prompt))
def test_prompt(release: Release, case: Prompt) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        prompt = _format(release, case.request, case.options)
    if case.dropped is None:
        assert [str(w.message) for w in caught] == []
    else:
        [warning] = caught
        assert warning.category is DroppedInputWarning
        assert all(field in str(warning.message) for field in case.dropped), warning.message
    if case.equals is not None:
        assert prompt == case.equals
    for part in case.contains:
        assert part in prompt
    for part in case.absent:
        assert part not in prompt
    if case.ends is not None:
        assert prompt.endswith(case.ends)


@pytest.mark.parametrize(("release", "case"), _rows(Refused))
def test_refused(release: Release, case: Refused) -> None:
    with pytest.raises(InvalidRequestError) as caught:
        _format(release, case.request, case.options)
    assert caught.value.field == case.field
    for words in case.words:
        assert words in str(caught.value)


@pytest.mark.parametrize(("release", "case"), _rows(Pair))
def test_pair(release: Release, case: Pair) -> None:
    first = _format(release, case.first, case.first_options)
    second = _format(release, case.second, case.second_options)
    assert (first == second) is case.same


def test_bad_special_token_policy_names_the_option(release: Release) -> None:
    with pytest.raises(InvalidRequestError) as info:
        get_formatter(release.model).format({"messages": HI}, special_tokens="drop")  # type: ignore[arg-type]
    assert info.value.field == "special_tokens"


@pytest.mark.parametrize(
    ("release", "document", "printed", "said"),
    [
        pytest.param(r, *row, id=f"{r.version}-{row[1]!r}")
        for r in RELEASES
        for row in MISSING_DOCUMENT_IDS.get(r.version, ())
    ],
)
@pytest.mark.parametrize("typed", [False, True])
def test_compatible_mode_prints_a_missing_or_null_id_as_the_template_does(
    release: Release, document: dict[str, object], printed: str, said: str, typed: bool
) -> None:
    request: Any = {"messages": QUESTION, "documents": [document]}
    if typed:
        request = coerce_request(request, Granite3ChatCompletion)
    with pytest.warns(DroppedInputWarning, match=re.escape(said)):
        prompt = _format(release, request, {"strict": False})
    head = f'<|start_of_role|>document {{"document_id": "{printed}"}}<|end_of_role|>\n'
    assert head + str(document["text"]) in prompt
    if oracle.shared_dir() is not None:
        oracle_request = {"messages": QUESTION, "documents": [document]}
        assert prompt == oracle.render(release.version, oracle_request, True, DAY)


# --------------------------------------------------------------------------- declarations


@pytest.mark.parametrize(
    "release", [pytest.param(r, id=r.version) for r in RELEASES if r.version in DECLARED]
)
def test_the_declaration(release: Release) -> None:
    declaration = release_declaration(release.version)
    name, tools_role = DECLARED[release.version]
    assert declaration.name == name
    layout = declaration.layout
    tools_turn = layout.tools_turn if isinstance(layout, DatedLayout) else None
    assert (tools_turn and tools_turn.role) == tools_role
    tokens = declaration.special_tokens.tokens
    expected = SPECIAL_TOKENS[release.version]
    if isinstance(expected[0], int):
        count, some = expected
        assert len(tokens) == count
        assert set(some) <= set(tokens)
    else:
        assert tokens == expected


def test_every_declared_release_renders_on_one_renderer() -> None:
    installed = [r.version for r in RELEASES if r.installed and r.version in DECLARATIONS]
    kinds = {type(release_declaration(version).input_processor()) for version in installed}
    assert len(kinds) <= 1
    with pytest.raises(TypeError):
        ReleaseDeclaration()  # type: ignore[call-arg]


@pytest.mark.parametrize(
    "release",
    [pytest.param(r, id=r.version) for r in RELEASES if r.goldens == "granite4"],
)
def test_a_release_with_another_system_message_is_a_new_value(release: Release) -> None:
    custom = attrs.evolve(
        release_declaration(release.version),
        name="Granite 4.x",
        layout=attrs.evolve(
            release_declaration(release.version).layout, default_system_message="Be nice."
        ),
    )
    assert custom.input_processor().transform({"messages": HI}) == (
        "<|start_of_role|>system<|end_of_role|>Be nice.<|end_of_text|>\n" + USER_HI + GEN
    )


@pytest.mark.parametrize("release", [pytest.param(r, id=r.version) for r in RELEASES])
def test_typed_requests_render_like_their_golden_dicts(release: Release) -> None:
    formatter = get_formatter(release.model)
    for case in release_cases(release):
        if case.special_tokens or "documents" in json.dumps(case.request):
            # A typed Document lists its declared fields (text, doc_id, title) first,
            # so the caller's key order is only kept for dict and JSON requests.
            continue
        if any(
            isinstance(m.get("content"), list)
            and m["content"][:1] == [{"type": "text", "text": ""}]
            for m in case.request["messages"]
        ):
            continue  # the typed request joined the parts before the template's rule
        if set(case.request) - set(ChatCompletion.model_fields):
            continue  # a typed request keeps no body parameters (reasoning_effort, ...)
        typed = ChatCompletion.model_validate(case.request)
        with warnings.catch_warnings():
            # a template-compatible case warns of what it drops (test_goldens counts it)
            warnings.simplefilter("ignore", DroppedInputWarning)
            prompt = formatter.format(
                typed,
                add_generation_prompt=case.add_generation_prompt,
                today=case.today,
                strict=case.strict,
            )
        assert prompt == case.prompt, case.name


@pytest.mark.parametrize(
    "release", [pytest.param(r, id=r.version) for r in RELEASES if r.has("controls")]
)
def test_options_kept_between_requests_follow_each_request(release: Release) -> None:
    """The renderer keeps the options of recent ``chat_template_kwargs``: a caller who
    changes their options dict after a call, or sends equal values of another type, gets
    the prompt of what they send now."""
    formatter = get_formatter(release.model)
    documents = [{"doc_id": "1", "text": "T"}]
    kwargs: dict[str, Any] = {"controls": {"citations": True}}
    request = {"messages": HI, "documents": documents, "chat_template_kwargs": kwargs}
    cited = formatter.format(request, today=DAY)
    kwargs["controls"]["hallucinations"] = True
    both = formatter.format(request, today=DAY)
    assert both != cited
    fresh = {"controls": {"citations": True, "hallucinations": True}}
    assert formatter.format({**request, "chat_template_kwargs": fresh}, today=DAY) == both
    kwargs["controls"] = {"citations": True}
    assert formatter.format(request, today=DAY) == cited
    with pytest.raises(InvalidRequestError) as caught:
        formatter.format(
            {**request, "chat_template_kwargs": {"controls": {"citations": 1}}}, today=DAY
        )
    assert caught.value.field == "chat_template_kwargs.controls.citations"
