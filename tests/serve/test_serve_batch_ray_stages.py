"""The Ray Data stages (granite_formatters.batch) on batches made here, without Ray:
each record ends as the line ``granite-format batch`` writes for it, whatever the batches."""

from __future__ import annotations

import io
import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from granite_formatters import UnknownModelError
from granite_formatters._batch.lines import read_requests
from granite_formatters._batch.offline import parse_outputs, write_prompts
from granite_formatters._batch.ray import FORMAT_COLUMNS, FormatStage, ParseStage
from granite_formatters._errors import InvalidRequestError

from .test_serve_batch import MODEL, TOOL_CALL, TOOLS, body, line

LIMIT = 2_000_000
LINES = [
    line("plain", body("Hello", max_tokens=50)),
    line("tools", body("Weather in Paris?", tools=TOOLS, temperature=0.5, stop="END")),
    "{not json",
    line("embed", body("Hi"), url="/v1/embeddings"),
    line("unknown", {**body("Hi"), "model": "no-such-model"}),
    line("streamed", body("Hi", stream=True)),
    json.dumps([1, 2]),
]
ANSWERS = {"plain": "Hello! How can I help?<|end_of_text|>", "tools": TOOL_CALL}


def without_ids(line: dict[str, Any]) -> dict[str, Any]:
    """An output line without what is made afresh each time (ids, the creation time)."""
    data: dict[str, Any] = json.loads(json.dumps(line))
    data.pop("id", None)
    if data.get("response"):
        data["response"].pop("request_id")
        data["response"]["body"].pop("id", None)
        data["response"]["body"].pop("created", None)
        for choice in data["response"]["body"].get("choices", ()):
            for call in choice["message"].get("tool_calls") or ():
                call.pop("id")
    return data


def batches(records: list[dict[str, Any]], sizes: list[int]) -> list[dict[str, list[Any]]]:
    """``records`` cut into dicts of columns (Ray's numpy batch format) of ``sizes``."""
    out, start = [], 0
    for size in [*sizes, len(records)]:
        part = records[start : start + size]
        start += len(part)
        if part:
            out.append({name: [row[name] for row in part] for name in part[0]})
    return out


def rows(outputs: list[dict[str, list[Any]]]) -> list[dict[str, Any]]:
    return [
        dict(zip(batch, values, strict=True))
        for batch in outputs
        for values in zip(*batch.values(), strict=True)
    ]


def test_format_stage_writes_what_prompts_only_writes(tmp_path: Path) -> None:
    source = tmp_path / "in.jsonl"
    source.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    written = io.StringIO()
    write_prompts(source, written, None, LIMIT)
    expected = [json.loads(text) for text in written.getvalue().splitlines()]
    records = [{"text": text, "line": number} for number, text in enumerate(LINES, 1)]
    got = FormatStage()({name: [r[name] for r in records] for name in ("text", "line")})
    assert list(got) == ["text", "line", *FORMAT_COLUMNS]
    for index, want in enumerate(expected):
        record = {name: got[name][index] for name in got}
        if "prompt" in want:
            assert record["result"] is None
            assert (record["custom_id"], record["prompt"]) == (want["custom_id"], want["prompt"])
            sampling = json.loads(record["sampling_params"])
            assert sampling["stop"] == want["stop"]
            assert sampling.get("max_tokens") == want.get("max_tokens")
            assert sampling["skip_special_tokens"] is False
            assert sampling["spaces_between_special_tokens"] is False
            assert record["model"] == MODEL
            assert json.loads(record["request"]) == json.loads(LINES[index])["body"]
        else:
            assert record["prompt"] is None and record["sampling_params"] is None
            assert without_ids(json.loads(record["result"])) == without_ids(want)
    tools = {name: got[name][1] for name in got}
    assert json.loads(tools["sampling_params"])["temperature"] == 0.5
    assert json.loads(tools["sampling_params"])["stop"][-1] == "END"
    assert json.loads(got["result"][2])["error"]["line"] == 3


def test_records_without_line_numbers_and_odd_values() -> None:
    """Ray's read_text gives no line numbers; a numeric column holds NaN for a missing
    value: the error names the record, and nothing is taken for a number."""
    got = FormatStage().row({"text": "{oops", "line": math.nan})
    error = json.loads(got["result"])["error"]
    assert error["line"] is None and error["message"].startswith("the record is not valid JSON")
    got = FormatStage().row({"text": None})
    assert json.loads(got["result"])["error"]["param"] == "text"


def test_a_model_for_every_record_and_an_unknown_one() -> None:
    stage = FormatStage(model="granite-3.3-8b-instruct", default_max_tokens=77)
    got = stage.row({"text": line("x", {**body("Hi"), "model": "whatever"})})
    assert got["model"] == "granite-3.3-8b-instruct"
    assert json.loads(got["sampling_params"])["max_tokens"] == 77
    with pytest.raises(UnknownModelError):
        FormatStage(model="no-such-model")


def parse_inputs() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The formatted records with generated text, and ``batch parse``'s lines for them."""
    formatted = [FormatStage().row({"text": text}) for text in LINES]
    for record in formatted:
        record["generated_text"] = ANSWERS.get(record["custom_id"] or "")
        record["finish_reason"] = "stop" if record["generated_text"] else None
        record["stop_reason"] = None
    return formatted, [r for r in formatted if r["custom_id"] in ANSWERS]


def test_parse_stage_writes_what_batch_parse_writes(tmp_path: Path) -> None:
    formatted, answered = parse_inputs()
    requests = tmp_path / "requests.jsonl"
    requests.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    raw = tmp_path / "raw.jsonl"
    raw.write_text(
        "".join(json.dumps({"custom_id": r["custom_id"], "text": r["generated_text"],
                            "finish_reason": "stop"}) + "\n" for r in answered),
        encoding="utf-8",
    )  # fmt: skip
    written = io.StringIO()
    parse_outputs(requests, raw, written, None, LIMIT)
    expected = {json.loads(t)["custom_id"]: json.loads(t) for t in written.getvalue().splitlines()}
    results = [json.loads(ParseStage().row(record)["result"]) for record in formatted]
    assert len(results) == len(LINES)  # nothing lost
    for record, result in zip(formatted, results, strict=True):
        if record["custom_id"] in expected:
            assert without_ids(result) == without_ids(expected[record["custom_id"]])
        else:  # (not formatted: the format stage's error line, unchanged)
            assert result == json.loads(record["result"])
    message = results[1]["response"]["body"]["choices"][0]["message"]
    assert message["tool_calls"][0]["function"] == {
        "name": "get_weather",
        "arguments": '{"city": "Paris"}',
    }


def test_parse_stage_without_generated_text() -> None:
    formatted, _ = parse_inputs()
    record = {
        **formatted[0],
        "generated_text": math.nan,
        "generation_error": "the backend answered 500",
    }
    result = json.loads(ParseStage().row(record)["result"])
    assert result["custom_id"] == "plain" and result["response"]["status_code"] == 502
    assert (
        result["response"]["body"]["error"]["message"]
        == "no generated text: the backend answered 500"
    )
    record = {**formatted[0], "generated_text": None}
    result = json.loads(ParseStage().row(record)["result"])
    message = result["response"]["body"]["error"]["message"]
    assert message == "no generated text: the generation stage gave no text"
    with pytest.raises(InvalidRequestError, match="^request: the record has no value"):
        ParseStage().row({"custom_id": "x", "generated_text": "hi"})


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(1, 8), max_size=6))
def test_any_batching_gives_each_record_its_row_result(sizes: list[int]) -> None:
    """Stream = batch: however the records are cut into batches, each one's columns are
    those of the record on its own."""
    records = [{"text": text} for text in LINES]
    alone = [FormatStage().row(r) for r in records]
    alone = [ParseStage().row({**r, **parse_extra(r)}) for r in alone]
    formatted = rows([FormatStage()(b) for b in batches(records, sizes)])
    for record in formatted:
        record.update(parse_extra(record))
    parsed = rows([ParseStage()(b) for b in batches(formatted, sizes[::-1])])
    assert len(parsed) == len(alone)
    for got, want in zip(parsed, alone, strict=True):
        assert {k: v for k, v in got.items() if k != "result"} == {
            k: v for k, v in want.items() if k != "result"
        }
        assert without_ids(json.loads(got["result"])) == without_ids(json.loads(want["result"]))


def parse_extra(record: dict[str, Any]) -> dict[str, Any]:
    return {"generated_text": ANSWERS.get(record["custom_id"] or ""), "finish_reason": "stop"}


def test_custom_ids_are_read_as_the_command_reads_them(tmp_path: Path) -> None:
    source = tmp_path / "in.jsonl"
    source.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    ids = [getattr(item, "custom_id", None) for item in read_requests(source)]
    assert [FormatStage().row({"text": t})["custom_id"] for t in LINES] == ids
