"""Property tests: any request problem is one bounded InvalidRequestError; message-shaped
objects validate exactly like the dicts they dump to."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict

from granite_formatters._errors import InvalidRequestError
from granite_formatters._types import ChatCompletion, coerce_request
from granite_formatters.granite3._types import Granite3ChatCompletion

USER = {"role": "user", "content": "Hi"}

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=300)
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=20), inner, max_size=4)
    ),
    max_leaves=12,
)
keys = st.one_of(
    st.text(max_size=300),
    st.integers(),
    st.tuples(st.integers()),
    st.sampled_from(
        ["tools", "documents", "chat_template_kwargs", "extra_body", "messages", "model"]
    ),
)


@given(st.dictionaries(keys, values, max_size=4), st.booleans())
def test_any_request_is_accepted_or_one_bounded_error(extra: dict[Any, Any], typed: bool) -> None:
    body: dict[Any, Any] = {"messages": [USER], **extra}
    cls = Granite3ChatCompletion if typed else ChatCompletion
    try:
        coerce_request(body, cls)
    except InvalidRequestError as exc:
        assert len(str(exc)) < 1200, str(exc)
        assert exc.field is None or len(exc.field) < 400


class Message(BaseModel):
    model_config = ConfigDict(extra="allow")

    role: str
    content: str | None = None
    name: str | None = None


class Duck:
    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data

    def model_dump(self) -> dict[str, Any]:
        return dict(self.data)


@given(
    st.text(min_size=1, max_size=20),
    st.one_of(st.none(), st.text(max_size=50)),
    st.one_of(st.none(), st.text(max_size=10)),
)
def test_message_objects_validate_like_their_dicts(
    role: str, content: str | None, name: str | None
) -> None:
    as_dict = {
        k: v for k, v in {"role": role, "content": content, "name": name}.items() if v is not None
    }
    expected = coerce_request({"messages": [as_dict]}, ChatCompletion)
    for message in (Message(role=role, content=content, name=name), Duck(as_dict)):
        got = coerce_request({"messages": [message]}, ChatCompletion)
        assert got.model_dump() == expected.model_dump()
