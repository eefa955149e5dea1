"""The RAG request's fast paths (issue 42, item 2) write what the checked path writes.

Documents and history messages written as they are (no field-by-field reading) must
still be checked: a special token in any of them is refused or stripped by the policy,
naming its field, and a missing id is named in the warning of a release that prints ids.
"""

from __future__ import annotations

import warnings
from types import MappingProxyType
from typing import Any

import pytest

from granite_formatters import get_formatter
from granite_formatters._engine import documents
from granite_formatters._engine.request import Problems
from granite_formatters._errors import DroppedInputWarning, InvalidRequestError
from granite_formatters._types import ChatCompletion

from support.releases import Release

APPLIES_TO = "documents"


def _request(texts: list[str]) -> dict[str, Any]:
    return {
        "messages": [
            {"role": "user", "content": "Q1?"},
            {"role": "assistant", "content": "A1."},
            {"role": "user", "content": "Q2?"},
        ],
        "documents": [{"text": text} for text in texts],
    }


def _render(processor: Any, request: Any, **options: Any) -> tuple[str, list[str]]:
    """The prompt and the warnings' messages (``strict=False``: a release that prints ids
    warns once about the missing ones)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", DroppedInputWarning)
        prompt = processor.transform(request, strict=False, **options)
    return prompt, [str(w.message) for w in caught if w.category is DroppedInputWarning]


def _token(release: Release) -> str:
    return "<|end_of_text|>" if release.has("dated-prompt") else "<documents>"


def test_typed_documents_without_ids_are_written_in_the_one_pass(
    release: Release, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A validated request's documents given without a doc_id are written as they are
    read, like a plain dict's ``{"text"}`` documents: not dumped and judged field by
    field; the prompt and warning are the plain dict's."""
    processor = get_formatter(release.model).input_processor
    request = _request(["First.", "Second.", "Third.", "Fourth."])
    expected = _render(processor, MappingProxyType(request))
    typed = ChatCompletion.model_validate(request)

    def forbidden(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the document was read field by field")

    monkeypatch.setattr(documents, "document_data", forbidden)
    assert _render(processor, typed) == expected
    if release.has("dated-prompt") and expected[1]:  # (a release that prints ids)
        assert all(f"documents[{index}].doc_id" in expected[1][0] for index in range(4))


@pytest.mark.parametrize("shape", ["plain", "typed"])
def test_a_special_token_in_a_document_without_an_id_is_refused_or_stripped(
    release: Release, shape: str
) -> None:
    """The fourth document's text holds a special token: refused naming
    ``documents[3].text``, or stripped, as when the request is validated first."""
    processor = get_formatter(release.model).input_processor
    token = _token(release)
    request = _request(["First.", "Second.", "Third.", f"Fou{token}rth."])
    given: Any = request if shape == "plain" else ChatCompletion.model_validate(request)
    with warnings.catch_warnings(), pytest.raises(InvalidRequestError) as refused:
        warnings.simplefilter("ignore", DroppedInputWarning)
        processor.transform(given, strict=False)
    assert refused.value.field == "documents[3].text"
    stripped = _render(processor, given, special_tokens="strip")
    assert stripped == _render(processor, MappingProxyType(request), special_tokens="strip")
    assert "Fourth." in stripped[0] and f"Fou{token}" not in stripped[0]


def test_a_null_doc_id_is_not_a_missing_one(release: Release) -> None:
    """A typed document whose doc_id was given as null prints as the template prints
    null (not as a missing id): the same prompt as the plain dict's."""
    processor = get_formatter(release.model).input_processor
    request = _request(["First."])
    request["documents"][0]["doc_id"] = None
    typed = ChatCompletion.model_validate(request)
    assert _render(processor, typed) == _render(processor, MappingProxyType(request))


def test_a_special_token_in_a_history_message_is_refused_naming_it(release: Release) -> None:
    """A past message written as it is still has its text checked."""
    processor = get_formatter(release.model).input_processor
    request = _request(["First."])
    request["messages"][1]["content"] = f"A{_token(release)}1."
    for given in (request, ChatCompletion.model_validate(request)):
        with warnings.catch_warnings(), pytest.raises(InvalidRequestError) as refused:
            warnings.simplefilter("ignore", DroppedInputWarning)
            processor.transform(given, strict=False)
        assert refused.value.field == "messages[1].content"


def _written_as_turns(release: Release) -> None:
    """Skip a release whose documents are not turns of their own (the Granite 3 layouts'
    documents turn(s), which read caller dicts in the fewest steps)."""
    if not release.has("controls"):
        pytest.skip("documents are written as turns by the Granite 3 layouts only")


def _outcome(processor: Any, request: Any, **options: Any) -> tuple[str, list[str]] | str:
    """The prompt and warnings, or the field the refusal names."""
    try:
        return _render(processor, request, **options)
    except InvalidRequestError as refused:
        assert refused.field is not None
        return refused.field


def _documents(shape: str, count: int) -> list[dict[str, Any]]:
    if shape == "text":
        return [{"text": f"Text {index}."} for index in range(count)]
    return [
        {"doc_id": f"d{index}", "title": f"Title {index}", "text": f"Text {index}."}
        for index in range(count)
    ]


@pytest.mark.parametrize("position", [0, 6, 15, 16, 19])
@pytest.mark.parametrize(
    ("shape", "field"), [("text", "text"), ("ids", "text"), ("ids", "doc_id"), ("ids", "title")]
)
def test_every_document_of_a_usual_shape_is_checked(
    release: Release, shape: str, position: int, field: str
) -> None:
    """Twenty documents of one usual shape (``{"text"}`` alone, or ``doc_id``, title and
    text), one of them with a special token in a field: the text's is refused naming it
    (or stripped), an id's wherever the id is printed, as when the request is validated
    first (its documents read one by one)."""
    _written_as_turns(release)
    processor = get_formatter(release.model).input_processor
    token = _token(release)
    request = _request([])
    request["documents"] = _documents(shape, 20)
    request["documents"][position][field] = f"Fou{token}rth."
    typed = ChatCompletion.model_validate(request)
    outcome = _outcome(processor, request)
    assert outcome == _outcome(processor, typed)
    if field == "text":
        assert outcome == f"documents[{position}].text"
    stripped = _outcome(processor, request, special_tokens="strip")
    assert stripped == _outcome(processor, typed, special_tokens="strip")
    assert not isinstance(stripped, str) and f"Fou{token}" not in stripped[0]
    kept = _outcome(processor, request, special_tokens="keep")
    assert kept == _outcome(processor, typed, special_tokens="keep")


@pytest.mark.parametrize(
    "odd",
    [
        {"text": "Odd."},
        {"doc_id": "x", "text": "Odd."},
        {"doc_id": None, "title": "T", "text": "Odd."},
        {"doc_id": 7, "title": "T", "text": "Odd."},
        {"doc_id": "x", "title": None, "text": "Odd."},
        {"doc_id": "x", "title": 3, "text": "Odd."},
        {"doc_id": "x", "title": "T", "source": "s"},
        {"doc_id": "x", "title": "T", "text": "Odd.", "source": "s"},
        {"doc_id": ["x"], "title": "T", "text": "Odd."},
        {"doc_id": "x", "title": "T", "text": "Odd.", 1: "one"},
        {"text": 5},
        {"text": None},
        {"text": ["Odd."]},
        {"title": "T", "text": "Odd.", "source": "s"},
        ["text"],
        "text",
    ],
)
@pytest.mark.parametrize("shape", ["text", "ids"])
@pytest.mark.parametrize("position", [0, 2, 17])
def test_a_document_of_another_shape_among_usual_ones(
    release: Release, odd: Any, shape: str, position: int
) -> None:
    """A document of another shape among twenty of a usual one (first, between, past
    the headings kept): the prompt and warnings (or the error) are those of the
    validated request, read one by one."""
    _written_as_turns(release)
    processor = get_formatter(release.model).input_processor
    request = _request([])
    request["documents"] = _documents(shape, 20)
    request["documents"][position] = odd
    try:
        typed: Any = ChatCompletion.model_validate(request)
    except ValueError:
        # (validation refuses it: the plain dict is refused too, naming the document)
        with pytest.raises(InvalidRequestError) as refused:
            _render(processor, request)
        assert refused.value.field is not None
        assert refused.value.field.startswith(f"documents[{position}]")
        return
    assert _outcome(processor, request) == _outcome(processor, typed)
    assert _outcome(processor, MappingProxyType(request)) == _outcome(processor, typed)


@pytest.mark.parametrize("count", [1, 3, 10, 17])
def test_the_warning_about_missing_ids_is_the_same_on_every_call(
    release: Release, count: int
) -> None:
    """Documents given as ``{"text"}`` alone: each call warns (a release that prints ids:
    one problem per document, in order), with the message of the validated request;
    strict, the first missing id is refused even when a later text holds a special
    token."""
    _written_as_turns(release)
    processor = get_formatter(release.model).input_processor
    request = _request([f"Text {index}." for index in range(count)])
    typed = ChatCompletion.model_validate(request)
    expected = _render(processor, typed)
    assert _render(processor, request) == expected
    assert _render(processor, request) == expected
    if not expected[1]:
        return
    (message,) = expected[1]
    fields = [f"documents[{index}].doc_id" for index in range(count)]
    assert message.count(".doc_id: ") == count
    assert [message.index(field + ": ") for field in fields] == sorted(
        message.index(field + ": ") for field in fields
    )
    request["documents"][-1]["text"] = f"Last{_token(release)}."
    with pytest.raises(InvalidRequestError) as refused:
        processor.transform(request)
    with pytest.raises(InvalidRequestError) as typed_refused:
        processor.transform(ChatCompletion.model_validate(request))
    assert refused.value.field == typed_refused.value.field
    last = f"documents[{count - 1}]"
    assert refused.value.field == ("documents[0].doc_id" if count > 1 else f"{last}.text")


class _Sly(str):
    """A ``str`` that denies holding anything (``in`` is always false)."""

    __slots__ = ()

    def __contains__(self, part: object) -> bool:
        return False


@pytest.mark.parametrize("field", ["text", "doc_id"])
@pytest.mark.parametrize("position", [0, 5])
def test_a_string_subclass_in_a_usual_document_is_checked_by_its_text(
    release: Release, field: str, position: int
) -> None:
    """A ``str`` subclass whose ``in`` lies, holding a special token, among documents of
    a usual shape: checked by what it holds, as when the request is validated first."""
    _written_as_turns(release)
    processor = get_formatter(release.model).input_processor
    request = _request([])
    request["documents"] = _documents("ids", 8)
    request["documents"][position][field] = _Sly(f"Fou{_token(release)}rth.")
    typed = ChatCompletion.model_validate(request)
    outcome = _outcome(processor, request)
    assert outcome == _outcome(processor, typed)
    if field == "text":
        assert outcome == f"documents[{position}].text"


def test_problems_added_at_once_are_those_added_one_by_one() -> None:
    """``Problems.add_each`` keeps what ``add`` would, field by field (strict: the first
    field refused); ``warning`` is the message of the items, whatever was met before it
    (a long one is made again, not kept)."""
    message = "has no id."
    fields = ("documents[0].doc_id", "documents[1].doc_id", "documents[2].doc_id")
    one_by_one, at_once = Problems(False), Problems(False)
    for field in fields:
        one_by_one.add(message, field)
    at_once.add_each(message, fields)
    at_once.add_each(message, fields[:1])
    one_by_one.add(message, fields[0])
    assert at_once.items == one_by_one.items
    with pytest.raises(InvalidRequestError) as refused:
        Problems(True).add_each(message, fields)
    assert refused.value.field == "documents[0].doc_id"
    lead = "granite-x: the prompt leaves out what the official chat template drops: "
    for items in (one_by_one.items, one_by_one.items[:2], ["a" * 20000], ["a" * 20000]):
        problems = Problems(False)
        problems.items.extend(items)
        assert problems.warning("granite-x") == lead + "; ".join(items)
        assert problems.warning("granite-x") == lead + "; ".join(items)
    assert Problems(False).warning("granite-y") == "granite-y: " + lead[len("granite-x: ") :]
