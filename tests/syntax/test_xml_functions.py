"""XML function/parameter tool calls (``XML_FUNCTIONS``): history writer, block reader,
typed decoding."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from granite_formatters import get_formatter
from granite_formatters._errors import InvalidRequestError
from granite_formatters._toolcalljson import SURROGATES_REPLACED
from granite_formatters.syntax import XML_FUNCTIONS, HistoryCall
from granite_formatters.syntax import _xml_functions as xml_functions
from granite_formatters.syntax._xml_functions import XmlBlockReader

from support import oracle
from support.history_writer import PlainWriter

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "book",
            "parameters": {
                "type": "object",
                "properties": {
                    "code": {"type": "string"},
                    "seats": {"type": "integer"},
                    "price": {"type": "number"},
                    "window": {"type": "boolean"},
                    "meta": {"type": "object"},
                    "tags": {"type": "array"},
                    "note": {"type": ["string", "null"]},
                    "maybe": {"type": ["integer", "null"]},
                    "free": {},
                },
            },
        },
    },
    {"name": "flat", "parameters": {"properties": {"n": {"type": "integer"}}}},
]

_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=6,
)
_KEYS = st.text(st.characters(blacklist_characters="\x00"), min_size=1, max_size=8)


def _write(*calls: HistoryCall) -> str:
    return XML_FUNCTIONS.write("X\n", calls, PlainWriter())


# --------------------------------------------------------------------------- writing


@given(
    name=st.text(min_size=1, max_size=10),
    arguments=st.dictionaries(_KEYS, _JSON, max_size=4),
    as_string=st.booleans(),
    wrapped=st.booleans(),
)
def test_history_calls_match_the_template(
    name: str, arguments: dict[str, Any], as_string: bool, wrapped: bool
) -> None:
    oracle.require_shared()
    function = {"name": name, "arguments": arguments}
    call = {"type": "function", "function": function} if wrapped else function
    given_arguments: Any = json.dumps(arguments) if as_string else arguments
    got = _write(HistoryCall(name, given_arguments, "messages[1].tool_calls[0]"))
    # The oracle gets the object: vLLM decodes a JSON-string arguments before templating.
    messages = [
        {"role": "user", "content": "u"},
        {"role": "assistant", "content": "X", "tool_calls": [call]},
    ]
    expected = oracle.render("4.2", {"messages": messages}, add_generation_prompt=False)
    prefix = "<|im_start|>system\n<|im_end|>\n<|im_start|>user\nu<|im_end|>\n<|im_start|>assistant\n<think></think>"
    assert expected == prefix + got + "<|im_end|>\n"


def test_value_forms() -> None:
    call = HistoryCall(
        "f",
        {"b": True, "n": None, "x": 1.5, "s": "verbatim <&>\n", "o": {"é": [1, "<"]}, "l": []},
        "messages[1].tool_calls[0]",
    )
    assert _write(call) == (
        "X\n<tool_call>\n<function=f>\n"
        "<parameter=b>\nTrue\n</parameter>\n"
        "<parameter=n>\nNone\n</parameter>\n"
        "<parameter=x>\n1.5\n</parameter>\n"
        "<parameter=s>\nverbatim <&>\n\n</parameter>\n"
        '<parameter=o>\n{"é": [1, "<"]}\n</parameter>\n'
        "<parameter=l>\n[]\n</parameter>\n"
        "</function>\n</tool_call>\n"
    )


@pytest.mark.parametrize(
    "arguments", ['"a string"', "[1, 2]", "not json", "", 3, None, ["a"], "{'a': 1}"]
)
def test_arguments_that_are_not_an_object_are_refused(arguments: Any) -> None:
    call = HistoryCall("f", arguments, "messages[3].tool_calls[0].function")
    with pytest.raises(InvalidRequestError) as raised:
        _write(call)
    assert raised.value.field == "messages[3].tool_calls[0].function.arguments"


def test_every_piece_of_caller_text_goes_through_the_writer() -> None:
    writer = PlainWriter()
    call = HistoryCall("f", {"k": "v", "o": {"a": 1}}, "m[1].tool_calls[0]")
    XML_FUNCTIONS.write("", [call], writer)
    assert writer.fields == [
        "m[1].tool_calls[0].name",
        "m[1].tool_calls[0].arguments.k",
        "m[1].tool_calls[0].arguments.k",
        "m[1].tool_calls[0].arguments.o",
        "m[1].tool_calls[0].arguments.o",
        "m[1].tool_calls[0].arguments.o",
    ]


# --------------------------------------------------------------------------- reading


def _scan(body: str, cuts: list[int] | None = None) -> tuple[int | None, str | None, int]:
    """Where the reader ends the body (absolute), or its error and stop (absolute)."""
    reader = XmlBlockReader()
    start = 0
    for cut in [*(cuts or []), len(body)]:
        piece = body[start:cut]
        if not reader.take(piece):
            end = reader.scan(piece, 0)
            if end is not None:
                return start + end, None, start + reader.stop
            if reader.error is not None:
                return None, reader.error, start + reader.stop
        start = cut
    return None, None, len(body)


CALL = "<function=book>\n<parameter=code>\n007\n</parameter>\n</function>"


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (CALL + "\n", (len(CALL), None)),
        ("<function=f>\n</function> ", (24, None)),
        ("<function=f>\n<parameter=v>\na </function> <b>\n</parameter>\n</function>\n", (69, None)),
        ("<function=f>\n<parameter=v>\n", (None, None)),
        ("<function=f\n>", (None, "has a name that is not closed by '>' on its line")),
        ("<fun=f>", (None, "is not '<function=' where that tag is expected")),
        ("<function=f>\ntext", (None, "has text outside <parameter=…> in a <function=…>")),
        ("<function=f>\n<param=x>", (None, "is not '<parameter=' where that tag is expected")),
        ("<function=f>\n</func>", (None, "is not '</function>' where that tag is expected")),
    ],
)
def test_reader_finds_the_end_of_the_body(
    body: str, expected: tuple[int | None, str | None]
) -> None:
    end, error, _stop = _scan(body)
    assert (end, error) == expected


_BODY_PIECES = st.sampled_from(
    [
        "<function=",
        "f",
        ">",
        "\n",
        "<parameter=",
        "k",
        "</parameter>",
        "</function>",
        "<",
        "x y",
        "</param",
        "eter>",
        " ",
        "<parameter=k>\n",
        "\n</parameter>\n",
        "<tool_call>",
        "</tool_call>",
        "</t",
    ]
)


@given(pieces=st.lists(_BODY_PIECES, max_size=14), data=st.data())
def test_reader_is_the_same_for_every_chunking(pieces: list[str], data: st.DataObject) -> None:
    body = "".join(pieces)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(body)), max_size=6)))
    assert _scan(body, cuts) == _scan(body)


def _decode(body: str, tools: Any = TOOLS) -> tuple[Any, list[str]]:
    notes: list[str] = []
    ids = iter(range(100))
    result = XML_FUNCTIONS.decode(body, 0, notes, lambda: f"call_{next(ids)}", tools)
    if isinstance(result, str):
        return result, notes
    return [(call.id, call.name, call.arguments) for call in result], notes


def _body(name: str, **values: str) -> str:
    params = "".join(f"<parameter={k}>\n{v}\n</parameter>\n" for k, v in values.items())
    return f"<function={name}>\n{params}</function>"


def test_values_are_typed_by_the_schema() -> None:
    body = _body(
        "book",
        code="007",
        seats="2",
        price="12.50",
        window="True",
        meta='{"a": [1]}',
        tags='["x"]',
        note="null",
        maybe="null",
        free="3",
    )
    assert _decode(body) == (
        [
            (
                "call_0",
                "book",
                {
                    "code": "007",
                    "seats": 2,
                    "price": 12.5,
                    "window": True,
                    "meta": {"a": [1]},
                    "tags": ["x"],
                    "note": None,  # (nullable: null, as vLLM reads it)
                    "maybe": None,
                    "free": "3",
                },
            )
        ],
        [],
    )


@pytest.mark.parametrize(
    ("key", "value", "kind"),
    [
        ("seats", "two", "'integer'"),
        ("seats", "007", "'integer'"),
        ("price", "1,5", "'number'"),
        ("window", "yes", "'boolean'"),
        ("meta", "[1]", "'object'"),
        ("tags", "{}", "'array'"),
        ("meta", "{bad", "'object'"),
    ],
)
def test_a_value_that_fails_its_type_stays_text(key: str, value: str, kind: str) -> None:
    calls, notes = _decode(_body("book", **{key: value}))
    assert calls == [("call_0", "book", {key: value})]
    assert notes == [
        f"tool call 0 ('book'): the value of {key!r} is not of type {kind}; kept as text"
    ]


def test_unknown_functions_and_no_tools_keep_text() -> None:
    assert _decode(_body("other", n="1")) == (
        [("call_0", "other", {"n": "1"})],
        ["tool call 0 ('other'): not one of the request's tools; its values are kept as text"],
    )
    assert _decode(_body("flat", n="1"), None) == ([("call_0", "flat", {"n": "1"})], [])
    assert _decode(_body("flat", n="1")) == ([("call_0", "flat", {"n": 1})], [])


def test_multi_line_values_lose_one_newline_each_side() -> None:
    body = "<function=f>\n<parameter=text>\n\nline 1\nline 2\n\n</parameter>\n</function>"
    assert _decode(body, None) == ([("call_0", "f", {"text": "\nline 1\nline 2\n"})], [])
    tight = "<function=f><parameter=text>v</parameter></function>"
    assert _decode(tight, None) == ([("call_0", "f", {"text": "v"})], [])


def test_repeated_parameter_and_empty_name() -> None:
    body = (
        "<function=f>\n<parameter=a>\n1\n</parameter>\n<parameter=a>\n2\n</parameter>\n</function>"
    )
    assert _decode(body, None) == (
        [("call_0", "f", {"a": "2"})],
        ["tool call 0 ('f'): the parameter 'a' is given twice; the last is kept"],
    )
    assert _decode("<function= >\n</function>", None) == ("its function name is empty", [])


def test_lone_surrogates_are_replaced() -> None:
    body = _body("book", meta='{"a": "\\ud800"}', code="\ud83d")
    calls, notes = _decode(body)
    assert calls == [("call_0", "book", {"meta": {"a": "\ufffd"}, "code": "\ufffd"})]
    assert notes == [SURROGATES_REPLACED]
    json.dumps(calls).encode()


@given(body=st.text())
def test_decode_of_what_the_reader_accepts_never_raises(body: str) -> None:
    end, _error, _stop = _scan(body.lstrip())
    if end is not None:
        _decode(body.lstrip()[:end])
        _decode(body.lstrip()[:end], None)


@given(
    name=st.text(
        st.characters(codec="utf-8", blacklist_characters="<>\n"),
        min_size=1,
        max_size=8,
    ).filter(lambda n: n.strip() == n),
    arguments=st.dictionaries(
        st.text(
            st.characters(codec="utf-8", blacklist_characters="<>\n"),
            min_size=1,
            max_size=6,
        ).filter(lambda k: k.strip() == k),
        st.text(st.characters(codec="utf-8"), max_size=10).filter(
            lambda v: "</parameter>" not in v
        ),
        max_size=4,
    ),
)
def test_what_the_writer_writes_the_reader_reads_back(name: str, arguments: dict[str, str]) -> None:
    block = _write(HistoryCall(name, arguments, "m"))[2:]
    body = block[len("<tool_call>\n") : -len("\n</tool_call>\n")]
    assert _scan(body)[0] == len(body)
    assert _decode(body, None) == ([("call_0", name, arguments)], [])


# --------------------------------------------------------------------------- read once

_VALUES = st.lists(_BODY_PIECES, max_size=6).map("".join)


@given(
    prefix=st.sampled_from(["", "<tool_call>\n", "x <tool_call> "]),
    name=st.sampled_from(["book", " flat ", "other", ""]),
    params=st.lists(st.tuples(st.sampled_from(["code", "seats", "n", "k"]), _VALUES), max_size=3),
    end_tag=st.sampled_from(["</function>", "</tool_call>"]),
    suffix=st.sampled_from(["", "\n</tool_call>", "<parameter=k>\n"]),
)
def test_decode_takes_the_readers_split_unchanged(
    prefix: str, name: str, params: list[tuple[str, str]], end_tag: str, suffix: str
) -> None:
    """A body the reader read whole is decoded from the split it kept, to exactly what
    splitting the body again gives (values holding markup included)."""
    element = f"<function={name}>\n"
    element += "".join(f"<parameter={k}>\n{v}\n</parameter>\n" for k, v in params)
    text = prefix + element + end_tag + suffix
    end = XmlBlockReader().scan(text, len(prefix))
    if end is None:
        return
    body = text[len(prefix) : end]
    kept = xml_functions._last_walked
    assert kept is not None and kept[0] == body  # (the reader kept what it read)
    from_reader = _decode(body)
    xml_functions._last_walked = None
    assert _decode(body) == from_reader


def test_a_stale_split_is_not_taken() -> None:
    """A body other than the one the reader last read whole is split anew."""
    assert XmlBlockReader().scan(_body("book", seats="2"), 0) is not None
    assert _decode(_body("book", seats="3")) == ([("call_0", "book", {"seats": 3})], [])


def test_a_batch_parse_splits_each_element_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The reader's split serves the decoding (it cost about a quarter of a 4.2 batch
    parse per call to split each element twice)."""
    walked: list[int] = []
    walk = xml_functions._walk

    def counted(text: str, pos: int, limit: int) -> Any:
        walked.append(pos)
        return walk(text, pos, limit)

    monkeypatch.setattr(xml_functions, "_walk", counted)
    blocks = [f"<tool_call>\n{_body('book', seats=str(n))}\n</tool_call>" for n in range(3)]
    request = {"messages": [{"role": "user", "content": "?"}], "tools": TOOLS}
    message = get_formatter("granite-4.2-8b").parse("Plan.</think>\n" + "\n".join(blocks), request)
    assert [(call.name, call.arguments) for call in message.tool_calls] == [
        ("book", {"seats": n}) for n in range(3)
    ]
    assert message.notes == []
    assert len(walked) == 3
