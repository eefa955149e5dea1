"""The Granite 3 fast lanes against the general path they short-cut.

Three lanes render a Granite 3 request: a plain dict of the common shapes straight from
the dict (``_render_plain``), other plain dicts from a light view, anything else after
validation; inside the renderer, each message and document of a plain or typed request
takes a fast lane when it needs nothing (exact ``str`` fields, no special token, no tool
call, a known role). Every lane must give the prompt, warnings or error of the general
path. Each property compares a request against the same request forced onto the general
path (a read-only mapping is always validated; ``str`` subclasses fail every exact-type
check, so each message and document takes the general branch), and the targeted tests
show which lane a request takes, so that the comparisons cannot pass by never using one.
"""

from __future__ import annotations

import copy
import datetime
import json
import warnings
from collections.abc import Callable
from types import MappingProxyType
from typing import Any

import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from granite_formatters import types
from granite_formatters.errors import InvalidRequestError
from granite_formatters.granite3._controls import controls_problem, valid_control_items
from granite_formatters.granite3._turns import generation_prompt
from granite_formatters.granite3.types import Granite3ChatCompletion
from granite_formatters.types import coerce_request

from support.granite3_support import (
    DATES,
    DIFFERENTIAL,
    TOKENS,
    maybe_perturbed_requests,
    policy_violations,
    valid_requests,
)
from support.release_data import input_processor_class
from support.releases import Release

APPLIES_TO = "controls"

DAY = datetime.date(2025, 4, 16)
POLICIES = st.sampled_from(["error", "strip", "keep"])


class _Plain(str):
    """A ``str`` subclass that changes nothing: it only fails the exact-type checks."""


class _Sneaky(str):
    """A ``str`` subclass that hides what it contains from ``in``."""

    def __contains__(self, item: object) -> bool:
        return False


class _Raising:
    """A value that fails every comparison (the direct lane must not compare it)."""

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("compared")

    __hash__ = object.__hash__


class _Dict(dict):  # type: ignore[type-arg]
    """A ``dict`` subclass: never a plain dict."""


def processor(release: Release) -> Any:
    return input_processor_class(release.version)()


def _outcome(call: Callable[[], str]) -> Any:
    """The prompt or the error of ``call``, and its warnings."""
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        try:
            result: Any = call()
        except InvalidRequestError as error:
            result = (type(error), error.field, str(error))
    return result, [(w.category, str(w.message)) for w in record]


def _plain_shapes(request: dict[str, Any]) -> dict[str, Any]:
    """The same request in the shapes the direct lane reads: content parts joined (as
    validation joins them), ``documents`` and ``chat_template_kwargs`` at the top level."""
    out = copy.deepcopy(request)
    for message in out["messages"]:
        content = message.get("content")
        if isinstance(content, list):
            message["content"] = "\n".join(part["text"] for part in content)
    moved = out.pop("extra_body", None) or {}
    out.update(moved)
    options = out.get("chat_template_kwargs")
    if isinstance(options, dict) and "documents" in options:
        options = dict(options)
        out["documents"] = options.pop("documents")
        out["chat_template_kwargs"] = options
    return out


def _with_str_subclasses(typed: Granite3ChatCompletion) -> Granite3ChatCompletion:
    """A copy of a typed request whose every role, content, document text and string id
    is a :class:`_Plain`: the same text, taking every general branch of the renderer."""
    copied = typed.model_copy(deep=True)
    for message in copied.messages:
        message.role = _Plain(message.role)
        if message.content is not None:
            message.content = _Plain(message.content)
    for document in copied.documents or ():
        document.text = _Plain(document.text)
        if isinstance(document.doc_id, str):
            document.doc_id = _Plain(document.doc_id)
    return copied


def _requests(version: str) -> st.SearchStrategy[dict[str, Any]]:
    return st.one_of(
        valid_requests(version, with_tokens=True).map(_plain_shapes),
        valid_requests(version, with_tokens=False).map(_plain_shapes),
        maybe_perturbed_requests(version),
        policy_violations(version).map(lambda case: _plain_shapes(case[0])),
    )


@DIFFERENTIAL
@given(data=st.data(), agp=st.booleans(), today=DATES, policy=POLICIES, strict=st.booleans())
def test_every_lane_gives_the_outcome_of_the_general_path(
    release: Release,
    data: st.DataObject,
    agp: bool,
    today: datetime.date,
    policy: str,
    strict: bool,
) -> None:
    request = data.draw(_requests(release.version), label="request")
    formatter = processor(release)

    def render(given: Any) -> Callable[[], str]:
        return lambda: formatter.transform(
            given, agp, today=today, special_tokens=policy, strict=strict
        )

    direct = formatter._render_plain(request, agp, today, policy)
    event("direct lane" if direct is not None else "general path")
    outcome = _outcome(render(request))
    if direct is not None:
        assert outcome == (direct, [])
    # The same data, always validated (a mapping that is not a dict).
    assert outcome == _outcome(render(MappingProxyType(request)))
    try:
        typed = coerce_request(request, Granite3ChatCompletion)
    except InvalidRequestError:
        return
    # The typed request (fast lanes per message and document) and the same with every
    # string a subclass (general branches only).
    assert outcome == _outcome(render(typed))
    assert outcome == _outcome(render(_with_str_subclasses(typed)))


# -- which lane a request takes -------------------------------------------------------------

TOOL = {"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}
BASE: dict[str, Any] = {
    "messages": [
        {"role": "user", "content": "Q?"},
        {"role": "assistant", "content": "A", "name": "bot", "tool_calls": []},
        {"role": "tool", "content": "42", "tool_call_id": "call_1"},
        {"role": "user", "content": "a < b, and <b>bold</b>", "reasoning_content": None},
    ],
    "documents": [
        {"doc_id": "1", "text": "T", "title": "x", "source": "web"},
        {"doc_id": 2, "text": "U"},
    ],
    "tools": [TOOL, {"name": "g"}],
    "chat_template_kwargs": {"controls": {"citations": True, "length": "short"}},
    "model": "granite",
    "temperature": 0.2,
}

#: Plain requests the direct lane renders (the base, and a few common variants).
DIRECT = {
    "base": BASE,
    "custom system": {
        "messages": [{"role": "system", "content": "Be brief."}, *BASE["messages"]],
        "documents": BASE["documents"],
    },
    "thinking": {"messages": BASE["messages"], "chat_template_kwargs": {"thinking": True}},
    "no options": {"messages": BASE["messages"][:1], "chat_template_kwargs": {}},
}


@pytest.mark.parametrize("name", DIRECT)
def test_common_plain_requests_take_the_direct_lane(
    release: Release, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    formatter = processor(release)
    request = DIRECT[name]
    expected = formatter.transform(MappingProxyType(request), today=DAY)

    def forbidden(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the plain request was validated")

    monkeypatch.setattr(types, "coerce_request", forbidden)
    assert formatter._render_plain(request, True, DAY, "error") == expected
    assert formatter.transform(request, today=DAY) == expected
    assert formatter.transform(request, today=DAY, strict=False) == expected


def _changed(path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    """``BASE`` with the item at ``path`` replaced by ``value``."""
    request = copy.deepcopy(BASE)
    target: Any = request
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return request


#: Each a change the direct lane must leave to the general path, the outcome being the
#: general path's (whose own tests judge it): subclassed dicts and strings, extra and
#: non-string keys, wrong types, tool calls, options the template would ignore, unknown
#: roles, a missing 3.3 document id.
UNUSUAL: dict[str, tuple[tuple[Any, ...], Any]] = {
    "request dict subclass": ((), None),
    "message dict subclass": (("messages", 0), _Dict(role="user", content="Q?")),
    "document dict subclass": (("documents", 0), _Dict(doc_id="1", text="T")),
    "controls dict subclass": (("chat_template_kwargs", "controls"), _Dict(citations=True)),
    "options dict subclass": (("chat_template_kwargs",), _Dict(thinking=False)),
    "role str subclass": (("messages", 0, "role"), _Plain("user")),
    "content str subclass": (("messages", 0, "content"), _Plain("Q?")),
    "sneaky content": (("messages", 0, "content"), _Sneaky("<|end_of_text|>")),
    "text str subclass": (("documents", 0, "text"), _Plain("T")),
    "sneaky text": (("documents", 0, "text"), _Sneaky("<|start_of_role|>")),
    "doc_id str subclass": (("documents", 0, "doc_id"), _Plain("1")),
    "title str subclass": (("documents", 0, "title"), _Plain("x")),
    "non-str message key": (("messages", 1, 7), "x"),
    "non-str document key": (("documents", 1, 7), "x"),
    "message key with a lone surrogate": (("messages", 1, "k\ud800"), "x"),
    "document key with a lone surrogate": (("documents", 1, "\udc00"), "x"),
    "name not a string": (("messages", 1, "name"), 3),
    "tool call": (("messages", 1, "tool_calls"), [{"function": {"name": "f"}}]),
    "tool calls not a list": (("messages", 1, "tool_calls"), "f()"),
    "content null": (("messages", 0, "content"), None),
    "content parts": (("messages", 0, "content"), [{"type": "text", "text": "Q?"}]),
    "role not a string": (("messages", 0, "role"), 1),
    "role fails comparisons": (("messages", 0, "role"), _Raising()),
    "developer role": (("messages", 0, "role"), "developer"),
    "doc_id bool": (("documents", 0, "doc_id"), True),
    "doc_id float": (("documents", 0, "doc_id"), 1.0),
    "doc_id missing": (("documents", 0, "doc_id"), None),
    "text not a string": (("documents", 0, "text"), 5),
    "title not a string": (("documents", 0, "title"), 5),
    "document not a dict": (("documents", 0), ["T"]),
    "tool not plain": (("tools", 0), {"type": "function", "function": {"description": "x"}}),
    "citations 1": (("chat_template_kwargs", "controls", "citations"), 1),
    "unknown control": (("chat_template_kwargs", "controls", "bogus"), True),
    "unknown option": (("chat_template_kwargs", "bogus"), True),
    "thinking with documents": (("chat_template_kwargs", "thinking"), True),
    "thinking not a bool": (("chat_template_kwargs", "thinking"), 1),
    "citations without documents": (("documents",), None),
    "extra body": (("extra_body",), {"documents": []}),
    "unknown field": (("bogus",), 1),
    "model not a string": (("model",), 1),
}


@pytest.mark.parametrize("name", UNUSUAL)
@pytest.mark.parametrize("strict", [True, False])
def test_unusual_shapes_take_the_general_path(release: Release, name: str, strict: bool) -> None:
    path, value = UNUSUAL[name]
    request: Any = MappingProxyType(BASE) if not path else _changed(path, value)
    if name == "doc_id missing":
        del request["documents"][0]["doc_id"]
    if name == "request dict subclass":
        request = _Dict(BASE)
    formatter = processor(release)
    if type(request) is dict:
        direct = formatter._render_plain(request, True, DAY, "error")
        if not (release.version == "3.2" and name == "doc_id missing"):
            # (3.2 does not print document ids: a missing one changes nothing there)
            assert direct is None
    # The outcome is the general path's: the same request as a read-only mapping.
    assert _outcome(lambda: formatter.transform(request, today=DAY, strict=strict)) == _outcome(
        lambda: formatter.transform(MappingProxyType(dict(request)), today=DAY, strict=strict)
    )


def _token_fields(version: str) -> list[tuple[tuple[Any, ...], str]]:
    """Every text field of ``BASE`` with a special token of the release in it."""
    fields: list[tuple[Any, ...]] = [
        ("messages", 0, "role"),
        ("messages", 0, "content"),
        ("messages", 1, "content"),
        ("messages", 3, "content"),
        ("documents", 0, "text"),
        ("documents", 1, "text"),
        ("documents", 0, "doc_id"),
        ("tools", 1, "name"),
    ]
    return [(path, token) for path in fields for token in TOKENS[version]]


@pytest.mark.parametrize("policy", ["error", "strip", "keep"])
def test_a_special_token_in_any_field_takes_the_general_path(release: Release, policy: str) -> None:
    formatter = processor(release)
    for path, token in _token_fields(release.version):
        request = _changed(path, f"a{token}b")
        direct = formatter._render_plain(request, True, DAY, policy)
        by_dict = _outcome(
            lambda: formatter.transform(request, today=DAY, special_tokens=policy)  # noqa: B023
        )
        by_json = _outcome(
            lambda: formatter.transform(json.dumps(request), today=DAY, special_tokens=policy)  # noqa: B023
        )
        assert by_dict == by_json, (path, token)
        if direct is not None:
            assert by_dict == (direct, [])
        if policy != "keep" and path[0] != "tools":
            # (the tools block applies the policy itself, the same on both paths)
            assert direct is None, (path, token)
        printed = not (path[-1] == "doc_id" and release.version == "3.2")  # (3.2: no ids)
        if policy == "error" and printed:
            assert isinstance(by_dict[0], tuple), (path, token)
            assert "special token" in by_dict[0][2]


def test_a_typed_request_changed_after_validation_is_checked_again(release: Release) -> None:
    """A str subclass hiding a token from ``in``, or a non-string, put into a validated
    request, takes the general branch, which reads the plain string."""
    formatter = processor(release)
    typed = coerce_request(BASE, Granite3ChatCompletion)
    for change in ("content", "text", "role"):
        changed = typed.model_copy(deep=True)
        if change == "content":
            changed.messages[1].content = _Sneaky("x<|end_of_text|>y")
        elif change == "text":
            assert changed.documents is not None
            changed.documents[1].text = _Sneaky("x<|start_of_role|>y")
        else:
            changed.messages[2].role = 5  # type: ignore[assignment]
        with pytest.raises(InvalidRequestError) as caught:
            formatter.transform(changed, today=DAY)
        expected = "must be a string" if change == "role" else "special token"
        assert expected in str(caught.value)


# -- the controls check and the memos -------------------------------------------------------

_CONTROL_KEYS = st.sampled_from(
    ["citations", "hallucinations", "length", "originality", "bogus", _Plain("citations")]
)
_CONTROL_VALUES = st.sampled_from(
    [
        *(True, False, None, "short", "long", "extractive", "abstractive"),
        *(1, 0, 1.0, "medium", "true", _Plain("short"), _Plain("long")),
    ]
)


@given(st.dictionaries(_CONTROL_KEYS, _CONTROL_VALUES, max_size=4))
def test_the_controls_fast_check_agrees_with_the_full_check(controls: dict[str, Any]) -> None:
    # A dict subclass skips the fast check (and the prompt memo): the full check and the
    # JSON writer judge it.
    slow = _Dict(controls)
    assert controls_problem(controls) == controls_problem(slow)
    items = valid_control_items(controls)
    assert (items is not None) == (controls_problem(slow) is None)
    for _ in range(2):  # (the second call is served by the memo)
        assert generation_prompt(controls) == generation_prompt(slow)
        assert generation_prompt(controls, items) == generation_prompt(slow)


def test_the_prompt_memo_tells_true_from_1() -> None:
    assert generation_prompt({"citations": True}).endswith('{"citations": true}<|end_of_role|>')
    assert generation_prompt({"citations": 1}).endswith('{"citations": 1}<|end_of_role|>')
    assert generation_prompt({"citations": True}).endswith('{"citations": true}<|end_of_role|>')


class _Day(datetime.date):
    """A date subclass: never memoized."""


@given(
    day=st.one_of(DATES, st.datetimes(), DATES.map(lambda day: _Day(day.year, day.month, day.day))),
    flags=st.tuples(st.booleans(), st.booleans(), st.booleans()),
    controls=st.one_of(st.none(), st.dictionaries(_CONTROL_KEYS, _CONTROL_VALUES, max_size=3)),
)
def test_the_system_turn_memo_gives_the_formats_turn(
    release: Release, day: datetime.date, flags: tuple[bool, bool, bool], controls: Any
) -> None:
    formatter = processor(release)
    tools, documents, thinking = flags
    expected = formatter.prompt_format.system_turn(
        day,
        tools=tools,
        documents=documents,
        thinking=thinking,
        citations=controls is not None and "citations" in controls,
        hallucinations=controls is not None and "hallucinations" in controls,
    )
    for _ in range(2):  # (the second call is served by the memo, for an exact date)
        assert formatter._system_turn(day, tools, documents, thinking, controls) == expected
    assert bool(formatter._system_turns) == (type(day) is datetime.date)
