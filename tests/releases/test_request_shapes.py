"""Request shapes each release reads like their plain equivalents.

A generator or tuple of messages renders as the list; ``Document`` objects and non-dict
mappings in a dict request render as their data; a typed request changed after
validation is read again (an error naming the field, or the changed request's prompt);
a typed request's text parts are joined as the plain request's are (by the template, or
by the server for a template that reads only strings). The documents check runs for the
releases that render documents; the changed-request check for the releases rendered
from a ``Release`` declaration.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

import pytest

from granite_formatters import get_formatter
from granite_formatters._errors import InvalidRequestError
from granite_formatters._types import ChatCompletion, Document

from support.releases import RELEASES, Release, with_feature


def _declared(release: Release) -> bool:
    """Whether the release's formatter renders from a ``Release`` declaration (an absent
    release is kept: the conftest skips it with the reason)."""
    return not release.installed or get_formatter(release.model).release is not None


def _params(releases: Any) -> pytest.MarkDecorator:
    return pytest.mark.parametrize("release", [pytest.param(r, id=r.version) for r in releases])


MESSAGES = [
    {"role": "system", "content": "S"},
    {"role": "user", "content": "Hi"},
    {"role": "assistant", "content": "Hello."},
    {"role": "user", "content": "Again"},
]


def test_messages_given_as_a_generator_render_as_the_list(release: Release) -> None:
    formatter = get_formatter(release.model)
    expected = formatter.format({"messages": MESSAGES})
    assert formatter.format({"messages": (m for m in MESSAGES)}) == expected
    assert formatter.format({"messages": tuple(MESSAGES)}) == expected


@_params(with_feature("documents"))
def test_document_objects_and_mappings_in_a_dict_request(release: Release) -> None:
    formatter = get_formatter(release.model)
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


@_params(r for r in RELEASES if _declared(r))
def test_a_typed_request_changed_after_validation(release: Release) -> None:
    formatter = get_formatter(release.model)
    typed = ChatCompletion.model_validate({"messages": MESSAGES})
    typed.messages[1].content = 5  # type: ignore[assignment]
    with pytest.raises(InvalidRequestError) as info:
        formatter.format(typed)
    assert info.value.field == "messages[1].content"
    grown = ChatCompletion.model_validate({"messages": MESSAGES[:3]})
    grown.messages.append(MESSAGES[3])  # type: ignore[arg-type]
    assert formatter.format(grown) == formatter.format({"messages": MESSAGES})


@pytest.mark.parametrize(
    "texts", [["", "a"], ["", "", "a"], ["", ""], [""], ["a", "", "b"], ["\nx", "y"], ["a", ""]]
)
def test_a_typed_request_joins_text_parts_as_the_template(
    release: Release, texts: list[str]
) -> None:
    formatter = get_formatter(release.model)
    for role in ("system", "user", "assistant"):
        request = {
            "messages": [{"role": role, "content": [{"type": "text", "text": t} for t in texts]}]
        }
        assert formatter.format(ChatCompletion.model_validate(request)) == formatter.format(request)


class _Dumped:
    """An object read through its ``model_dump()``, as the ``openai`` package's are."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data

    def model_dump(self) -> dict[str, Any]:
        return self.data


@pytest.mark.parametrize("texts", [["", "a"], ["", "", "a"], ["a", "", "b"]])
def test_a_message_object_joins_text_parts_as_its_dict(release: Release, texts: list[str]) -> None:
    formatter = get_formatter(release.model)
    message = {"role": "user", "content": [{"type": "text", "text": t} for t in texts]}
    typed = ChatCompletion.model_validate({"messages": [_Dumped(message)]})
    assert formatter.format(typed) == formatter.format({"messages": [message]})
