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
