"""Shared robustness checks for every bundled formatter (issue: hostile input, concurrency).

Each plugin's ``test_robustness.py`` calls these with its own model id. Hostile requests
must either render or raise a ``FormatterError`` subclass with a message; hostile model
output must always parse. Every example is bounded by a hypothesis deadline, so a hang
or a super-linear blow-up fails the test instead of stalling CI.
"""

from __future__ import annotations

import datetime
import json
import threading
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import granite_formatters
from granite_formatters.errors import FormatterError
from granite_formatters.testing import FUZZ_MARKERS
from granite_formatters.types import AssistantMessage

DEADLINE = datetime.timedelta(seconds=10)
FUZZ = settings(
    max_examples=300,
    deadline=DEADLINE,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# JSON-ish values of every type, including ones no field accepts.
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=20),
    st.sampled_from(["\ud800", "\udfff", "a\x00b", "<|end_of_text|>", "<|start_of_role|>"]),
)
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)

FIELDS = ["messages", "tools", "documents", "chat_template_kwargs", "extra_body", "model"]


def good_request() -> dict[str, Any]:
    return {
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Hi"},
        ],
        "tools": [{"name": "f", "description": "d", "parameters": {"type": "object"}}],
    }


@st.composite
def hostile_requests(draw: st.DrawFn) -> Any:
    """Valid skeletons with one or more fields replaced by arbitrary values."""
    kind = draw(st.integers(0, 5))
    if kind == 0:
        return draw(json_values)
    request: dict[str, Any] = good_request()
    for field in draw(st.lists(st.sampled_from(FIELDS), min_size=1, max_size=3)):
        request[field] = draw(json_values)
    if kind == 1:
        index = draw(st.integers(0, 1))
        request["messages"] = list(good_request()["messages"])
        request["messages"][index] = draw(
            st.dictionaries(st.sampled_from(["role", "content", "tool_calls", "name"]), json_values)
        )
    if kind == 2:
        request["chat_template_kwargs"] = {
            "thinking": draw(json_values),
            "controls": draw(json_values),
        }
    if kind == 3:
        request["documents"] = draw(
            st.lists(
                st.dictionaries(st.sampled_from(["text", "doc_id", "title"]), json_values),
                max_size=3,
            )
        )
    return request


def nested(depth: int) -> Any:
    value: Any = "leaf"
    for _ in range(depth):
        value = {"type": "object", "properties": {"x": value}}
    return value


def check_hostile_requests(model: str) -> None:
    formatter = granite_formatters.get_formatter(model)

    @FUZZ
    @given(request=hostile_requests(), as_json=st.booleans())
    def check(request: Any, as_json: bool) -> None:
        if as_json:
            try:
                request = json.dumps(request)
            except (ValueError, TypeError):
                return
        try:
            prompt = formatter.format(request, today=datetime.date(2025, 1, 1))
        except FormatterError as exc:
            assert str(exc)
        else:
            assert isinstance(prompt, str)

    check()


def check_extreme_requests(model: str) -> None:
    formatter = granite_formatters.get_formatter(model)
    big = "lorem ipsum " * 90_000  # about 1 MB
    cases: list[Any] = [
        {
            "messages": [{"role": "user", "content": "q"}],
            "documents": [{"text": big, "doc_id": "1"}],
        },
        {
            "messages": [{"role": "user", "content": "q"}],
            "tools": [{"name": "f", "parameters": nested(200)}],
        },
        {
            "messages": [{"role": "user", "content": "q"}],
            "tools": [{"name": f"f{i}"} for i in range(5000)],
        },
        {
            "messages": [{"role": "user", "content": "q"}],
            "tools": [{"name": "f", "parameters": nested(100_000)}],
        },
        json.dumps({"messages": [{"role": "user", "content": "q"}], "tools": [[[[[[]]]]]] * 3}),
        "[" * 100_000,
        {"messages": [{"role": "user", "content": "\ud800 lone surrogate"}]},
        {"messages": [{"role": "user", "content": "x"}] * 20_000},
    ]
    for request in cases:
        try:
            prompt = formatter.format(request, today=datetime.date(2025, 1, 1))
        except FormatterError as exc:
            assert str(exc)
        else:
            assert isinstance(prompt, str)


#: The test kit's marker alphabet plus a few more pieces of the Granite 3 formats.
MARKERS = [
    *FUZZ_MARKERS,
    "<co>1</co>",
    "Here's my response:",
    '{"document_id": "0"}',
    "1. Risk high: x",
    'Document 0: "',
    "]",
    "}",
    ":",
]


def check_hostile_outputs(model: str, request: Any) -> None:
    formatter = granite_formatters.get_formatter(model)
    raw_bytes = st.binary(max_size=300).map(lambda b: b.decode("utf-8", errors="replace"))
    soup = st.lists(st.one_of(st.sampled_from(MARKERS), st.text(max_size=10)), max_size=60).map(
        "".join
    )

    @FUZZ
    @given(output=st.one_of(raw_bytes, soup), with_request=st.booleans())
    def check(output: str, with_request: bool) -> None:
        message = formatter.parse(output, request if with_request else None)
        assert isinstance(message, AssistantMessage)
        if message.content != output:
            assert message.raw_content == output

    check()

    extremes = [
        "<co>"
        + "9" * 5000
        + "</co> giant id\n# Citations:\n<co>"
        + "9" * 5000
        + '</co> Document 0: "x"',
        "<|tool_call|>" + "[" * 50_000 + "]" * 50_000,
        '<|tool_call|>[{"name": "f", "arguments": ' + '{"a": ' * 20_000 + "1" + "}" * 20_000 + "}]",
        "<think>" * 20_000 + "</think>" * 20_000,
        "# Citations:\n" * 10_000,
        "<co>1</co>" * 50_000,
        '<|start_of_cite|>{"document_id": "' + "x" * 100_000 + '"}<|end_of_cite|>',
    ]
    for output in extremes:
        for req in (None, request):
            message = formatter.parse(output, req)
            assert isinstance(message, AssistantMessage)


def check_concurrent_formatting(model: str, requests: list[Any]) -> None:
    formatter = granite_formatters.get_formatter(model)
    today = datetime.date(2025, 3, 4)
    serial = [formatter.format(r, today=today) for r in requests]
    state_before = (
        {k: repr(v) for k, v in vars(formatter.input_processor).items()}
        if hasattr(formatter.input_processor, "__dict__")
        else {}
    )
    results: list[list[str]] = []
    errors: list[BaseException] = []
    barrier = threading.Barrier(32)

    def worker() -> None:
        try:
            barrier.wait()
            results.append(
                [formatter.format(r, today=today) for r in requests * 5][: len(requests)]
            )
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker) for _ in range(32)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(results) == 32 and all(r == serial for r in results)
    state_after = (
        {k: repr(v) for k, v in vars(formatter.input_processor).items()}
        if hasattr(formatter.input_processor, "__dict__")
        else {}
    )
    assert state_after == state_before


def check_concurrent_parsing(model: str, outputs: list[tuple[str, Any]]) -> None:
    formatter = granite_formatters.get_formatter(model)

    def dump(message: AssistantMessage) -> Any:
        data = message.model_dump(mode="json")
        for call in data.get("tool_calls", []):
            call.pop("id", None)
        return data

    serial = [dump(formatter.parse(o, r)) for o, r in outputs]
    results: list[list[Any]] = []
    barrier = threading.Barrier(32)

    def worker() -> None:
        barrier.wait()
        results.append([dump(formatter.parse(o, r)) for o, r in outputs])

    threads = [threading.Thread(target=worker) for _ in range(32)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 32 and all(r == serial for r in results)
