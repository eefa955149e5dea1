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
import time
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import granite_formatters
from granite_formatters._errors import FormatterError
from granite_formatters._types import AssistantMessage
from granite_formatters.testing import FUZZ_MARKERS

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
    "\\ud83d",
    '"arguments": "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["',
    '<|tool_call|>[{"name": "f", "arguments": {"t": "\\udc00"}}]',
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
            assert message.raw_content == output or "lone surrogates" in str(message.notes)
        # Every parsed message serialises.
        message.model_dump_json()
        json.dumps(message.to_openai(), ensure_ascii=False).encode("utf-8")

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
            message.model_dump_json()
            json.dumps(message.to_openai())


def check_concurrent_formatting(model: str, requests: list[Any]) -> None:
    formatter = granite_formatters.get_formatter(model)
    today = datetime.date(2025, 3, 4)
    serial = [formatter.format(r, today=today) for r in requests]
    # Again: the formatter is get_formatter's shared one, so earlier tests may have filled
    # its bounded caches, and the first pass may have evicted its own first keys. After a
    # second pass the caches hold every key of these requests: any change is the threads'.
    assert [formatter.format(r, today=today) for r in requests] == serial
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


# ----------------------------------------------------------------------------------------
# Growth: every parser path is linear in the output.

#: Time for 4x the input may be at most this many times the time for 1x (linear: ~4).
GROWTH_BOUND = 6.0


def _best_times(runs: list[Any], rounds: int = 5) -> list[float]:
    """The best time of each run over ``rounds`` rounds that call every run once, in turn:
    on a shared machine whose speed changes for seconds at a time, every size then sees
    the same slow and fast spells, which timing each size's repeats back to back does not
    (a slow spell over the largest size alone looked like quadratic growth). The time is
    this thread's CPU time, so the time a loaded machine runs other processes is left out."""
    best = [float("inf")] * len(runs)
    for _ in range(rounds):
        for index, run in enumerate(runs):
            start = time.thread_time()
            run()
            best[index] = min(best[index], time.thread_time() - start)
    return best


def _parse_streaming(formatter: Any, text: str, request: Any) -> None:
    parser = formatter.stream_parser(request)
    for start in range(0, len(text), 16):
        parser.feed(text[start : start + 16])
    parser.close()


def growth_ratios(
    formatter: Any, make: Any, n: int, *, streaming: bool = False
) -> tuple[float, float]:
    """Time ratios (4N / N, 16N / 4N) of parsing ``make(size)`` -> (output, request)."""
    runs = []
    for size in (n, 4 * n, 16 * n):
        text, request = make(size)
        if streaming:
            runs.append(lambda t=text, r=request: _parse_streaming(formatter, t, r))
        else:
            runs.append(lambda t=text, r=request: formatter.parse(t, r))
    times = _best_times(runs)
    return times[1] / times[0], times[2] / times[1]


def _linear(ratios: tuple[float, float]) -> bool:
    # Over the two 4x steps, on average at most GROWTH_BOUND per step (a quadratic path
    # gives 16 per step); a single step may reach 12, because a cheap C-level scan
    # slows down when the text outgrows a CPU cache, which is a constant factor.
    first, second = ratios
    return (first * second) ** 0.5 <= GROWTH_BOUND and max(ratios) <= 2 * GROWTH_BOUND


def check_linear_growth(model: str, make: Any, n: int) -> None:
    """Batch and 16-character streaming of ``make(size)`` grow about linearly."""
    formatter = granite_formatters.get_formatter(model)
    for streaming in (False, True):
        ratios = growth_ratios(formatter, make, n, streaming=streaming)
        if not _linear(ratios):  # one retry: the machine is shared
            ratios = growth_ratios(formatter, make, n, streaming=streaming)
        assert _linear(ratios), (streaming, ratios)


def _rag_request(document: str, doc_id: Any = "0") -> dict[str, Any]:
    return {
        "messages": [{"role": "user", "content": "q"}],
        "documents": [{"doc_id": doc_id, "text": document}],
        "chat_template_kwargs": {"controls": {"citations": True, "hallucinations": True}},
    }


def _filler(size: int) -> str:
    words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"]
    return " ".join(f"{words[i % 8]}{i % 97}" for i in range(size // 8))


#: Pathological output shapes, each ``size -> (output, request)``. Shapes shared by
#: every Granite 3 release; the release tests add their citation shapes.
COMMON_SHAPES: dict[str, Any] = {
    "tool call markers": lambda n: ("<|tool_call|>" * n, None),
    "tool call blocks": lambda n: ('<|tool_call|>[{"name":"f"}]' * n, None),
    "one long call list": lambda n: (
        "<|tool_call|>[" + ",".join(['{"name":"f","arguments":{"a":1}}'] * n) + "]",
        None,
    ),
    "newlines": lambda n: ("\n" * (8 * n), None),
    "short lines": lambda n: ("a.\n" * (4 * n), None),
    "think markers": lambda n: ("<think>" * n + "</think>" * n, None),
}


def co_shapes() -> dict[str, Any]:
    """Granite 3.1/3.2 ``<co>`` shapes: tags x document size, citation lines."""
    return {
        "co tags against a growing document": lambda n: (
            "".join(f"Sentence {i}.<co>{i}</co> " for i in range(n // 8))
            + "\n# Citations:\n"
            + "".join(
                f'<co>{i}</co> Document 0: "quote number {i} absent"\n' for i in range(n // 8)
            ),
            _rag_request(_filler(64 * n)),
        ),
        "citation lines": lambda n: (
            "Answer.<co>1</co>\n# Citations:\n" + '<co>1</co> Document 0: "x"\n' * n,
            _rag_request("x"),
        ),
        "header-like lines": lambda n: ("# Citations:\n" * n, None),
        "a quote left open over many lines": lambda n: (
            'Answer.<co>1</co>\n# Citations:\n<co>1</co> Document 0: "x\n' + "more text\n" * n,
            None,  # no documents: the quote is read, not searched for
        ),
    }


def cite_shapes() -> dict[str, Any]:
    """Granite 3.3 cite-token shapes: tags x document size, citation lines."""
    return {
        "cite tags against a growing document": lambda n: (
            "".join(
                f'Sentence {i}.<|start_of_cite|>{{"document_id": "0"}}<|end_of_cite|> '
                for i in range(n // 8)
            )
            + '\n<|start_of_plugin|>{"id": "citation"}\n'
            + "".join(f'0: "quote number {i} absent"\n' for i in range(n // 8))
            + "<|end_of_plugin|>",
            _rag_request(_filler(64 * n)),
        ),
        "citation lines": lambda n: (
            'A.<|start_of_cite|>{"document_id": "0"}<|end_of_cite|>\n'
            '<|start_of_plugin|>{"id": "citation"}\n' + '0: "x"\n' * n + "<|end_of_plugin|>",
            _rag_request("x"),
        ),
        "plugin tokens": lambda n: ("<|start_of_plugin|>" * n + "<|end_of_plugin|>" * n, None),
        "a quote left open over many lines": lambda n: (
            'A.<|start_of_cite|>{"document_id": "0"}<|end_of_cite|>\n'
            '<|start_of_plugin|>{"id": "citation"}\n0: "x\n' + "more text\n" * n,
            None,  # no documents: the quote is read, not searched for
        ),
    }
