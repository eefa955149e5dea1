"""Request shapes the engine reads like their plain equivalents (issue 26, items 3, 8, 9).

Each failed before the fix: a generator of messages raised ``TypeError``, a ``Document``
object or a non-dict mapping in a dict request was "cannot be written as JSON", and a
typed request changed after validation raised a bare ``TypeError``.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

import pytest

from granite_formatters import get_formatter
from granite_formatters.errors import InvalidRequestError
from granite_formatters.types import ChatCompletion, Document

MODELS = ["granite-4.0-h-small", "granite-4.1-8b"]
MESSAGES = [
    {"role": "system", "content": "S"},
    {"role": "user", "content": "Hi"},
    {"role": "assistant", "content": "Hello."},
    {"role": "user", "content": "Again"},
]


@pytest.mark.parametrize("model", MODELS)
def test_messages_given_as_a_generator_render_as_the_list(model: str) -> None:
    formatter = get_formatter(model)
    expected = formatter.format({"messages": MESSAGES})
    assert formatter.format({"messages": (m for m in MESSAGES)}) == expected
    assert formatter.format({"messages": tuple(MESSAGES)}) == expected


@pytest.mark.parametrize("model", MODELS)
def test_document_objects_and_mappings_in_a_dict_request(model: str) -> None:
    formatter = get_formatter(model)
    data = {"doc_id": "1", "text": "Paris is the capital.", "title": "Paris"}
    document = Document.model_validate(data)
    # A Document object is written as its data (fields in the model's order).
    dumped = document.model_dump(exclude_unset=True)
    expected = formatter.format({"messages": MESSAGES, "documents": [dumped, data]})
    mixed: list[Any] = [document, MappingProxyType(data)]
    assert formatter.format({"messages": MESSAGES, "documents": mixed}) == expected
    # The mapping's key order is kept, as a dict's is.
    reordered = {"text": data["text"], "doc_id": "1"}
    assert formatter.format(
        {"messages": MESSAGES, "documents": [MappingProxyType(reordered)]}
    ) == formatter.format({"messages": MESSAGES, "documents": [reordered]})


@pytest.mark.parametrize("model", MODELS)
def test_a_typed_request_changed_after_validation(model: str) -> None:
    formatter = get_formatter(model)
    typed = ChatCompletion.model_validate({"messages": MESSAGES})
    typed.messages[1].content = 5  # type: ignore[assignment]
    with pytest.raises(InvalidRequestError) as info:
        formatter.format(typed)
    assert info.value.field == "messages[1].content"
    grown = ChatCompletion.model_validate({"messages": MESSAGES[:3]})
    grown.messages.append(MESSAGES[3])  # type: ignore[arg-type]
    assert formatter.format(grown) == formatter.format({"messages": MESSAGES})


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize(
    "texts", [["", "a"], ["", "", "a"], ["", ""], [""], ["a", "", "b"], ["\nx", "y"], ["a", ""]]
)
def test_a_typed_request_joins_text_parts_as_the_template(model: str, texts: list[str]) -> None:
    """(Item 4: a typed request whose first text part was empty rendered "\\na".)"""
    formatter = get_formatter(model)
    for role in ("system", "user", "assistant"):
        request = {
            "messages": [{"role": role, "content": [{"type": "text", "text": t} for t in texts]}]
        }
        assert formatter.format(ChatCompletion.model_validate(request)) == formatter.format(request)
