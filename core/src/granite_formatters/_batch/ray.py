"""Ray Data stages: Granite formatting and parsing inside a ``ray.data`` pipeline.

:class:`FormatStage` and :class:`ParseStage` are callable classes for
``Dataset.map_batches`` (each worker builds one and keeps it: the formatters are looked
up once per worker); their ``row`` methods fit ``ray.data.llm``'s
``build_llm_processor(config, preprocess=..., postprocess=...)``, which maps rows. A
record goes through them exactly as a line goes through ``granite-format batch``
(the same code: :mod:`granite_formatters._batch.offline`), and ends as the line that
command writes. Batches may be pandas DataFrames or dicts of columns (Ray's ``numpy``
and ``default`` batch formats); each is answered in its own format. Nested values
travel as JSON text: Arrow, Ray's block format, would merge the records' differing
dicts into one struct type and add ``null`` for every key a record lacks.

Ray is not imported: the stages only need the batches Ray hands them.
"""

from __future__ import annotations

import json
import operator
from collections.abc import Callable, Mapping
from typing import Any

from .._api import get_formatter
from .._errors import InvalidRequestError, quote
from .._serve.exchange import Prepared
from .._serve.params import backend_fields
from .._serve.responses import error_body
from .._serve_args import DEFAULT_MAX_PROMPT_CHARS
from .lines import BatchRequest, LineError, dumps, parse_request, result_line
from .offline import formatted, parsed_line
from .runner import checked_body

__all__ = ["FORMAT_COLUMNS", "KEEP_SPECIAL_TOKENS", "FormatStage", "ParseStage"]

#: The columns :class:`FormatStage` adds to each record.
FORMAT_COLUMNS = ("custom_id", "model", "prompt", "request", "sampling_params", "result")

#: Asked of vLLM beside the request's own options: the answer's special tokens kept as
#: text (Granite's tool-call and citation markers are special tokens) and joined as
#: generated. vLLM's default, ``skip_special_tokens=True``, removes them: a tool call
#: comes back as plain content, and citations cannot be located.
KEEP_SPECIAL_TOKENS: Mapping[str, bool] = {
    "skip_special_tokens": False,
    "spaces_between_special_tokens": False,
}


def _line_number(value: Any) -> int | None:
    if value is None or isinstance(value, (bool, str, float)):
        return None
    try:
        return operator.index(value)  # (numpy integers too)
    except TypeError:
        return None


class FormatStage:
    """Formats Batch API request lines into prompts.

    Reads the column ``text`` (one line of a Batch API input file, as
    ``ray.data.read_text`` gives it) and, if present, ``line`` (its line number, for
    error messages). Adds :data:`FORMAT_COLUMNS`: ``custom_id``; ``model`` (the name to
    send the backend); ``prompt``; ``request`` (the chat request as JSON text, for
    :class:`ParseStage`); ``sampling_params`` (JSON text: the fields of vLLM's
    ``/v1/completions`` for the request: the release's and the request's stop strings,
    ``max_tokens`` and sampling options, and :data:`KEEP_SPECIAL_TOKENS`); and
    ``result``, which is ``None`` unless the line cannot be formatted: then it is the
    output line (JSON text) ``granite-format batch`` writes for it, and ``prompt`` is
    ``None``.

    ``model`` formats every line for that model (the body's ``model`` otherwise);
    ``default_max_tokens`` is sent for requests that set no limit.
    """

    def __init__(
        self,
        model: str | None = None,
        default_max_tokens: int | None = None,
        max_prompt_chars: int = DEFAULT_MAX_PROMPT_CHARS,
    ) -> None:
        if model is not None:
            get_formatter(model)  # an unknown name fails here, before any record
        self.model = model
        self.default_max_tokens = default_max_tokens
        self.max_prompt_chars = max_prompt_chars

    def row(self, row: Mapping[str, Any]) -> dict[str, Any]:
        """One record with :data:`FORMAT_COLUMNS` added."""
        out = {**row, **dict.fromkeys(FORMAT_COLUMNS)}
        number = _line_number(row.get("line"))
        text = row.get("text")
        if isinstance(text, str):
            item = parse_request(number, text)
        else:
            problem = InvalidRequestError(f"must be a string, got {quote(text)}", field="text")
            item = LineError(number, None, problem)
        out["custom_id"] = item.custom_id
        prepared = formatted(item, self.model, self.max_prompt_chars)
        if not isinstance(prepared, Prepared):
            out["result"] = dumps(prepared)
            return out
        assert isinstance(item, BatchRequest)
        body = checked_body(item.body, self.model)
        stops = tuple(getattr(prepared.formatter, "stop_strings", ()))
        fields = backend_fields("openai", body, prepared.params, stops)
        if "max_tokens" not in fields and self.default_max_tokens is not None:
            fields["max_tokens"] = self.default_max_tokens
        out["model"] = prepared.backend_model
        out["prompt"] = prepared.prompt
        out["request"] = dumps(body)
        out["sampling_params"] = dumps({**fields, **KEEP_SPECIAL_TOKENS})
        return out

    def __call__(self, batch: Any) -> Any:
        """A batch (a pandas DataFrame or a dict of columns) with the columns added."""
        return _map_rows(batch, self.row, FORMAT_COLUMNS)


class ParseStage:
    """Parses generated text into the output lines of ``granite-format batch``.

    Reads the columns :class:`FormatStage` added and the generation's: ``generated_text``
    (``None`` when there is none), and if present ``finish_reason``, ``stop_reason``
    (vLLM's: the stop string matched) and ``generation_error`` (why there is no text).
    Sets ``result`` to the output line (JSON text: ``custom_id``, ``response`` with a
    ``chat.completion`` body, ``error``) of every record; a record that already has one
    (it could not be formatted) keeps it, and one with no generated text gets status 502
    with ``generation_error`` as the message.
    """

    def __init__(self, max_prompt_chars: int = DEFAULT_MAX_PROMPT_CHARS) -> None:
        self.max_prompt_chars = max_prompt_chars

    def row(self, row: Mapping[str, Any]) -> dict[str, Any]:
        """One record with ``result`` set."""
        out = dict(row)
        if isinstance(row.get("result"), str):
            return out
        # (Ray hands a missing value as None, or as NaN in a column it made numeric.)
        missing = [name for name in ("custom_id", "request") if not isinstance(row.get(name), str)]
        if missing:
            raise InvalidRequestError(
                "the record has no value: run FormatStage before ParseStage", field=missing[0]
            )
        custom_id = str(row["custom_id"])
        text = row.get("generated_text")
        if not isinstance(text, str):
            reason = row.get("generation_error")
            if not isinstance(reason, str) or not reason:
                reason = "the generation stage gave no text"
            body = error_body(502, f"no generated text: {reason}", None, None)
            out["result"] = dumps(result_line(custom_id, 502, body))
            return out
        request = BatchRequest(None, custom_id, json.loads(row["request"]))
        data = {
            "text": text,
            "finish_reason": row.get("finish_reason"),
            "stop_reason": row.get("stop_reason"),
        }
        out["result"] = dumps(parsed_line(request, data, None, self.max_prompt_chars))
        return out

    def __call__(self, batch: Any) -> Any:
        """A batch (a pandas DataFrame or a dict of columns) with ``result`` set."""
        return _map_rows(batch, self.row, ("result",))


def _map_rows(
    batch: Any, change: Callable[[Mapping[str, Any]], dict[str, Any]], added: tuple[str, ...]
) -> Any:
    """``change`` applied to each row of ``batch``, which gains the columns ``added``;
    answered in ``batch``'s format."""
    frame = hasattr(batch, "to_dict") and hasattr(batch, "columns")  # a pandas DataFrame
    if frame:
        given = list(batch.columns)
        rows = [change(row) for row in batch.to_dict("records")]
    else:
        columns = dict(batch)
        given = list(columns)
        count = len(next(iter(columns.values()))) if columns else 0
        rows = [change({name: values[i] for name, values in columns.items()}) for i in range(count)]
    names = given + [name for name in added if name not in given]
    if frame:
        return type(batch).from_records(rows, columns=names)
    return {name: [row[name] for row in rows] for name in names}
