"""The engine's plain-dict fast path against the validated path.

A plain dict of exactly the expected types is rendered straight from the dict; its JSON
text and the typed ``ChatCompletion`` always take the validated path. On random valid,
dropping and broken requests, for each release rendered from a ``Release`` declaration,
under every special-token policy and both modes, the three must give the same prompt and
warnings, or the same error. The last tests show which path a request takes, so the
comparison cannot pass by never using one.
"""

from __future__ import annotations

import copy
import warnings
from types import MappingProxyType
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from granite_formatters import _types as types
from granite_formatters import get_formatter
from granite_formatters._engine import documents
from granite_formatters._engine import request as granite4_input
from granite_formatters._errors import DroppedInputWarning, InvalidRequestError
from granite_formatters._types import ChatCompletion

from support.granite4_strategies import DIFFERENTIAL, dropping_requests, valid_requests
from support.releases import RELEASES, Release


def APPLIES_TO(release: Release) -> bool:
    """The releases rendered from a ``Release`` declaration (an absent one is kept: the
    conftest skips it with the reason)."""
    return not release.installed or get_formatter(release.model).release is not None


@pytest.fixture(scope="module")
def processor(release: Release) -> Any:
    """The release's input processor, through the public lookup."""
    return get_formatter(release.model).input_processor


POLICIES = st.sampled_from(["error", "strip", "keep"])

#: One key of the request (or of one message) changed to something the fast path must
#: leave to validation: a wrong type, a subclass, a non-str key, a moved field.
_PERTURBATIONS: list[tuple[Any, Any]] = [
    ("role", 1),
    ("role", None),
    ("content", None),
    ("content", 3),
    ("content", [{"type": "text", "text": "a"}, {"type": "image_url"}]),
    ("name", 1),
    ("tool_call_id", ["x"]),
    ("tool_calls", ({"function": {"name": "f", "arguments": "{}"}},)),
    ("tool_calls", ["not a call"]),
    ("tool_calls", "x"),
    (1, "non-str message key"),
    ("k\ud800", "message key with a lone surrogate"),  # (validation refuses such a key)
    ("messages", []),
    ("messages", ({"role": "user", "content": "x"},)),
    ("tools", [{"type": "other", "function": {"name": "f"}}]),
    ("tools", [{"name": 1}]),
    ("tools", [{1: "x", "name": "f"}]),
    ("tools", ({"name": "f"},)),
    ("documents", [{"doc_id": True, "text": "t"}]),
    ("documents", [{"text": "t", "title": 1}]),
    ("documents", [{"text": 1}]),
    ("documents", [{2: "x", "text": "t"}]),
    ("documents", [{"\udc00": "x", "text": "t"}]),
    ("chat_template_kwargs", {"documents": [{"text": "t"}]}),
    ("chat_template_kwargs", {1: True}),
    ("chat_template_kwargs", [("thinking", True)]),
    ("chat_template_kwargs", {"available_tools": "x"}),  # (plain: the renderer refuses it)
    ("extra_body", {"documents": [{"text": "t"}]}),
    ("extra_body", {"bogus": 1}),
    ("bogus", 1),
    ("model", 1),
    ("model", "granite-4.0-micro"),
    ("temperature", 0.5),
]
_MESSAGE_KEYS = ("role", "content", "name", "tool_call_id", "tool_calls", 1, "k\ud800")


class _Str(str):
    """A ``str`` subclass: validation reads it, the fast path must not."""


@st.composite
def broken_requests(draw: st.DrawFn) -> dict[str, Any]:
    request = draw(valid_requests())
    key, value = draw(st.sampled_from(_PERTURBATIONS))
    if draw(st.integers(0, 5)) == 0:
        key, value = "content", _Str("subclass")
    if key in _MESSAGE_KEYS:
        messages = request["messages"]
        index = draw(st.integers(0, len(messages) - 1))
        messages[index] = {**messages[index], key: value}
    else:
        request[key] = value
    return request


def _plain(request: dict[str, Any]) -> dict[str, Any]:
    """The request with every non-string content made a string, so it takes the fast path
    more often (the strategies draw null content and content parts)."""
    out = copy.deepcopy(request)
    for index, message in enumerate(out["messages"]):
        if type(message.get("content")) is not str:
            message["content"] = f"text {index}"
    return out


def _outcome(processor: Any, given: Any, agp: bool, policy: str, strict: bool) -> Any:
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        try:
            prompt: Any = processor.transform(given, agp, special_tokens=policy, strict=strict)
        except InvalidRequestError as error:
            prompt = (type(error), error.field, str(error))
    return prompt, [(w.category, str(w.message)) for w in record]


def _assert_same_on_every_path(
    processor: Any, request: dict[str, Any], agp: bool, policy: str, strict: bool
) -> None:
    """The dict (fast path when plain), the same data as a read-only mapping (always the
    validated path) and, when it validates, the typed request: one outcome.

    (Content parts and documents are compared on the first two only: a typed message
    holds its parts already joined the vLLM way, and a typed document prints its fields
    in the model's order, while a dict's parts are joined as the template joins them and
    its documents keep the caller's key order.)"""
    has_parts = any(
        isinstance(m, dict) and isinstance(m.get("content"), list) for m in request["messages"]
    )
    by_dict = _outcome(processor, request, agp, policy, strict)
    assert by_dict == _outcome(processor, MappingProxyType(request), agp, policy, strict)
    if has_parts:
        return
    try:
        typed = ChatCompletion.model_validate(request)
    except ValidationError:
        assert isinstance(by_dict[0], tuple) and by_dict[0][0] is InvalidRequestError
        return
    if typed.documents:
        return
    assert by_dict == _outcome(processor, typed, agp, policy, strict)


@DIFFERENTIAL
@given(valid_requests(), st.booleans(), POLICIES, st.booleans())
def test_valid_requests_give_one_outcome_on_every_path(
    processor: Any, request: dict[str, Any], agp: bool, policy: str, strict: bool
) -> None:
    _assert_same_on_every_path(processor, request, agp, policy, strict)
    _assert_same_on_every_path(processor, _plain(request), agp, policy, strict)


@DIFFERENTIAL
@given(dropping_requests(), st.booleans(), POLICIES, st.booleans())
def test_dropping_requests_give_one_outcome_on_every_path(
    processor: Any,
    case: tuple[dict[str, Any], str],
    agp: bool,
    policy: str,
    strict: bool,
) -> None:
    _assert_same_on_every_path(processor, case[0], agp, policy, strict)
    _assert_same_on_every_path(processor, _plain(case[0]), agp, policy, strict)


@DIFFERENTIAL
@given(broken_requests(), st.booleans(), POLICIES, st.booleans())
def test_broken_requests_give_one_outcome_on_every_path(
    processor: Any, request: dict[str, Any], agp: bool, policy: str, strict: bool
) -> None:
    _assert_same_on_every_path(processor, request, agp, policy, strict)


# -- which path a request takes -----------------------------------------------------------

TOOL = {"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}
CALL = {"name": "f", "arguments": '{"x": 1}'}
PLAIN: dict[str, Any] = {
    "messages": [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Q?"},
        {"role": "assistant", "content": "", "tool_calls": [{"function": CALL}]},
        {"role": "tool", "content": "42", "tool_call_id": "call_1"},
    ],
    "documents": [
        {"doc_id": 1, "text": "T", "title": "x", "source": "web"},
        {"doc_id": "2", "text": "U"},
    ],
    "tools": [TOOL, {"name": "g"}],
    "chat_template_kwargs": {"available_tools": None},
    "model": "granite",
    "temperature": 0.2,
}


def _without_documents(request: dict[str, Any], release: Release) -> dict[str, Any]:
    """``request``, without its documents for a release that does not render them."""
    if release.has("documents"):
        return request
    return {key: value for key, value in request.items() if key != "documents"}


def test_a_plain_request_is_rendered_without_validation(
    release: Release, processor: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    plain = _without_documents(PLAIN, release)
    expected = processor.transform(MappingProxyType(plain))

    def forbidden(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the plain request was validated")

    monkeypatch.setattr(types, "coerce_request", forbidden)
    assert processor.transform(plain) == expected
    if release.has("dated-prompt"):  # (the documents in turns of their own, as text)
        written = "<|start_of_role|>document" in expected and "\nT" in expected
    else:
        written = '{"doc_id": 1, "text": "T", "title": "x", "source": "web"}' in expected
    assert written == release.has("documents")


#: Perturbations that a plain dict may carry: the renderer judges them the same on both
#: paths (an ignored OpenAI parameter, a model name, available_tools of the wrong type).
_PLAIN_ENOUGH = [
    ("model", "granite-4.0-micro"),
    ("temperature", 0.5),
    ("chat_template_kwargs", {"available_tools": "x"}),
]


@pytest.mark.parametrize(
    ("key", "value"), [case for case in _PERTURBATIONS if case not in _PLAIN_ENOUGH]
)
def test_anything_unusual_takes_the_validated_path(key: Any, value: Any) -> None:
    request = copy.deepcopy(PLAIN)
    if key in _MESSAGE_KEYS:
        request["messages"][1] = {**request["messages"][1], key: value}
    else:
        request[key] = value
    assert granite4_input.plain_request(request) is None
    assert granite4_input.plain_request(PLAIN) is not None


@pytest.mark.parametrize("policy", ["error", "strip", "keep"])
def test_a_message_object_met_twice_is_named_at_each_index(processor: Any, policy: str) -> None:
    # (the plain render loop looks a message's index up only for a message it must check)
    odd = {"role": "developer", "content": "a<|end_of_text|>b"}
    ask = {"role": "user", "content": "q"}
    request = {"messages": [ask, odd, ask, odd, odd]}
    _assert_same_on_every_path(processor, request, True, policy, False)


@pytest.mark.parametrize(("key", "value"), _PLAIN_ENOUGH)
def test_ignored_or_renderer_judged_keys_stay_on_the_fast_path(key: str, value: Any) -> None:
    assert granite4_input.plain_request({**PLAIN, key: value}) is not None


def test_a_str_subclass_takes_the_validated_path() -> None:
    request = copy.deepcopy(PLAIN)
    request["messages"][1]["content"] = _Str("x")
    assert granite4_input.plain_request(request) is None


# -- the typed lanes ----------------------------------------------------------------------

_DOCUMENT_VALUES = st.one_of(
    st.none(),
    st.text(max_size=5),
    st.integers(),
    st.booleans(),
    st.floats(allow_nan=False),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    st.builds(_Str, st.text(max_size=5)),
)


@given(
    st.dictionaries(
        st.sampled_from(["text", "doc_id", "title", "source", "x"]), _DOCUMENT_VALUES, max_size=5
    )
)
def test_a_typed_documents_data_is_its_dump(data: dict[str, Any]) -> None:
    """``document_data`` (read from the fields) against ``model_dump(exclude_unset=True)``:
    equal, keys in the same order, for documents with and without extras, unset fields and
    values of every type."""
    try:
        document = types.Document.model_validate(data)
    except ValidationError:
        return
    read = granite4_input.document_data(document)
    dumped = document.model_dump(exclude_unset=True)
    assert read == dumped
    assert list(read) == list(dumped)
    assert [type(value) for value in read.values()] == [type(value) for value in dumped.values()]


class _Sneaky(str):
    """A ``str`` subclass that hides what it contains from ``in``."""

    def __contains__(self, item: object) -> bool:
        return False


@pytest.mark.parametrize("index", [0, 1, 2])
def test_a_typed_request_changed_after_validation_is_scanned_again(
    processor: Any, index: int
) -> None:
    """A token hidden from ``in`` by a ``str`` subclass put into a validated request is
    still found (the per-message fast lane takes only exact strings)."""
    typed = ChatCompletion.model_validate(
        {
            "messages": [
                {"role": "system", "content": "S"},
                {"role": "user", "content": "Q"},
                {"role": "assistant", "content": "A"},
            ]
        }
    )
    typed.messages[index].content = _Sneaky("x<|end_of_text|>y")
    with pytest.raises(InvalidRequestError) as caught:
        processor.transform(typed)
    assert caught.value.field == f"messages[{index}].content"
    assert "special token" in str(caught.value)


@pytest.mark.parametrize(
    ("release", "place"),
    [
        pytest.param(r, place, id=f"{r.version}-{place}")
        for r in RELEASES
        if APPLIES_TO(r)
        for place in ("message", "document", "tool", "kwargs", "request")
        if place != "document" or r.has("documents")
    ],
    indirect=["release"],
)
def test_non_dict_mappings_inside_a_request_give_the_dict_prompt(
    release: Release, processor: Any, place: str
) -> None:
    base: dict[str, Any] = {
        "messages": [{"role": "user", "content": "hi"}],
        "documents": [{"text": "t", "doc_id": 1}],
        "tools": [{"name": "f"}],
        "chat_template_kwargs": {},
    }
    base = _without_documents(base, release)
    request: Any = copy.deepcopy(base)
    if place == "message":
        request["messages"][0] = MappingProxyType(request["messages"][0])
    elif place == "document":
        request["documents"][0] = MappingProxyType(request["documents"][0])
    elif place == "tool":
        request["tools"][0] = MappingProxyType(request["tools"][0])
    elif place == "kwargs":
        request["chat_template_kwargs"] = MappingProxyType(request["chat_template_kwargs"])
    else:
        request = MappingProxyType(request)
    assert processor.transform(request) == processor.transform(base)


def test_documents_of_text_alone_are_written_as_they_are_read(
    release: Release, processor: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Documents given as ``{"text": ...}`` alone (the shape many callers send) are
    written in the one pass over the documents, each checked as it is written: not
    judged a second time, field by field."""
    if not release.has("documents"):
        pytest.skip("the release's template renders no documents")
    request = {
        "messages": [{"role": "user", "content": "Q?"}],
        "documents": [{"text": "First."}, {"text": "Second."}],
    }
    strict = True
    try:
        expected = processor.transform(MappingProxyType(request))
    except InvalidRequestError as error:  # (a release that prints ids needs them)
        assert error.field == "documents[0].doc_id"
        strict = False  # (what the template prints: each missing id as "", with a warning)
        with pytest.warns(DroppedInputWarning) as expected_warnings:
            expected = processor.transform(MappingProxyType(request), strict=False)

    def forbidden(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the document was read field by field")

    monkeypatch.setattr(documents, "is_plain_document", forbidden)
    if strict:
        assert processor.transform(request) == expected
    else:
        with pytest.raises(InvalidRequestError, match="give every document a doc_id") as refused:
            processor.transform(request)
        assert refused.value.field == "documents[0].doc_id"
        with pytest.warns(DroppedInputWarning) as warned:
            assert processor.transform(request, strict=False) == expected
        assert [str(w.message) for w in warned] == [str(w.message) for w in expected_warnings]
        assert "documents[0].doc_id" in str(warned[0].message)
        assert "documents[1].doc_id" in str(warned[0].message)
    assert "First." in expected and "Second." in expected
    monkeypatch.undo()  # (a text holding a token is judged on the way to its error)
    token = "<|end_of_text|>" if release.has("dated-prompt") else "<documents>"
    request["documents"][1]["text"] = f"Sec{token}ond."
    with warnings.catch_warnings(), pytest.raises(InvalidRequestError) as caught:
        warnings.simplefilter("ignore", DroppedInputWarning)  # (documents[0]'s missing id)
        processor.transform(request, strict=strict)
    assert caught.value.field == "documents[1].text"


def test_many_documents_of_text_alone_are_each_checked_and_named(
    release: Release, processor: Any
) -> None:
    """Past the sixteen documents whose headings and id fields are kept, a text-alone
    document is still checked as it is written (a token stripped or refused, naming its
    field) and, for a release that prints ids, its missing id named in the warning."""
    if not release.has("documents"):
        pytest.skip("the release's template renders no documents")
    token = "<|end_of_text|>" if release.has("dated-prompt") else "<documents>"
    texts = [f"Text {index}." for index in range(18)]
    texts[17] = f"Te{token}xt 17."
    request = {
        "messages": [{"role": "user", "content": "Q?"}],
        "documents": [{"text": text} for text in texts],
    }
    with warnings.catch_warnings(record=True) as warned:
        warnings.simplefilter("always", DroppedInputWarning)
        with pytest.raises(InvalidRequestError) as refused:
            processor.transform(request, strict=False)
        assert refused.value.field == "documents[17].text"
        stripped = processor.transform(request, strict=False, special_tokens="strip")
        # (the same as the request read field by field, after validation)
        validated = MappingProxyType(request)
        assert stripped == processor.transform(validated, strict=False, special_tokens="strip")
    assert f"Te{token}" not in stripped
    assert stripped.index("Text 16.") < stripped.index("Text 17.")
    messages = [str(w.message) for w in warned if w.category is DroppedInputWarning]
    if release.has("dated-prompt") and "documents[0].doc_id" in "".join(messages):
        last = messages[-1]
        assert all(f"documents[{index}].doc_id:" in last for index in range(18))
