"""A release's output format as a declarative response template for other runtimes.

transformers (``parse_response``, ``transformers serve``) and vLLM (``--reasoning-parser
hf --tool-call-parser hf``) parse a model's output by the ``response_template`` of its
``tokenizer_config.json``: a start anchor (where the assistant's turn begins in the
prompt), then fields, each a region between an open and a close delimiter whose text a
content parser (``text``, ``json``, ``xml-inline``) reads. :func:`response_template`
builds one from a bundled release's declaration (its turns, reasoning and tool-call
syntaxes), and :func:`write_response_template` writes it into a model folder. What such
a template cannot express is listed per release in ``docs/runtimes.md``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from ._errors import FormatterError, quote
from .syntax._dated_layout import DatedLayout

if TYPE_CHECKING:
    from .release import Release

__all__ = [
    "SPELLINGS",
    "ExportError",
    "Spelling",
    "release_response_template",
    "response_template",
    "write_response_template",
]

Spelling = Literal["transformers", "vllm"]
#: The runtimes a template is spelt for: the name each gives the reasoning field.
SPELLINGS: dict[str, str] = {"transformers": "reasoning_content", "vllm": "thinking"}

_TOOL_CALL = {"type": "function", "function": "{content}"}
_LISTED_CALL = {"type": "function", "function": {"name": "{name}", "arguments": "{arguments}"}}
_NAMED_CALL = {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}}


class ExportError(FormatterError, ValueError):
    """A response template that cannot be made or written (the message says why)."""


def _one_or_list(markers: tuple[str, ...]) -> str | list[str]:
    unique = list(dict.fromkeys(markers))
    return unique[0] if len(unique) == 1 else unique


def _any_of(markers: tuple[str, ...] | list[str]) -> str:
    """A pattern matching any of ``markers``, longest first."""
    ordered = sorted(dict.fromkeys(markers), key=len, reverse=True)
    return "(?:" + "|".join(re.escape(marker) for marker in ordered) + ")"


def _start_anchor(release: Release) -> dict[str, str]:
    turns: Any = release.turns
    header = turns.header("assistant")
    layout = release.layout
    if not isinstance(layout, DatedLayout) or layout.controls is None:
        return {"start_anchor": header}
    # The controls' JSON object follows the role of the generation prompt (Granite 3.x).
    return {
        "start_anchor_pattern": re.escape(turns.start + "assistant")
        + r"(?: \{[^\n]*\})?"
        + re.escape(turns.after_role)
    }


def _reasoning_field(release: Release) -> dict[str, Any] | None:
    reasoning = release.reasoning
    if reasoning is None:
        return None
    marked = reasoning.marked()
    starts = marked.starts if marked is not None else (reasoning.open,)
    ends = marked.ends if marked is not None else (reasoning.close,)
    return {"open": _one_or_list(starts), "close": _one_or_list(ends), "content": "text"}


def _tool_call_field(release: Release) -> dict[str, Any] | None:
    from .syntax._json_blocks import JsonBlocks
    from .syntax._json_list import JsonList
    from .syntax._xml_functions import XmlFunctions

    syntax = release.tool_calls
    if syntax is None:
        return None
    # A leading \s* keeps the blank between content and a call (or two calls) out of the
    # content region: an empty content region closing there would overwrite the content.
    if isinstance(syntax, JsonBlocks):
        return {
            "open_pattern": r"\s*" + re.escape(syntax.open),
            "close": syntax.close,
            "repeats": True,
            "content": "json",
            "transform": _TOOL_CALL,
        }
    if isinstance(syntax, XmlFunctions):
        return {
            "open_pattern": r"\s*" + re.escape(syntax.open) + r"\s*<function=(?P<name>[^>\n]+)>",
            "close_pattern": r"</function>\s*" + re.escape(syntax.close),
            "repeats": True,
            "content": "xml-inline",
            "content_args": {
                # The template writes a value between newlines: one is dropped each side.
                "tag_pattern": r"<parameter=(?P<key>[^>\n]+)>\n?(?P<value>.*?)\n?</parameter>",
            },
            "transform": _NAMED_CALL,
        }
    if isinstance(syntax, JsonList):
        field: dict[str, Any] = {
            "open_pattern": r"\s*" + _any_of((syntax.open, *release.tool_call_markers)),
            "content": "json",
            "transform": _LISTED_CALL,
            "transform_each": True,
        }
        if release.tool_call_ends:
            field["close"] = _one_or_list(release.tool_call_ends)
        return field
    raise ExportError(
        f"{release.name}'s tool-call syntax ({type(syntax).__name__}) has no declarative "
        "equivalent in a response template"
    )


def _content_field(release: Release) -> dict[str, Any]:
    turns: Any = release.turns
    ends = (*release.stop_strings, turns.end.strip(), *release.dropped_tokens)
    return {"close_pattern": r"\s*" + _any_of([end for end in ends if end]), "content": "text"}


def release_response_template(
    release: Release, *, spelling: Spelling = "transformers"
) -> dict[str, Any]:
    """The response template of ``release`` (see :func:`response_template`)."""
    if spelling not in SPELLINGS:
        raise ExportError(
            f"unknown runtime {quote(spelling)}; choose one of {', '.join(SPELLINGS)}"
        )
    fields: dict[str, Any] = {}
    reasoning = _reasoning_field(release)
    if reasoning is not None:
        fields[SPELLINGS[spelling]] = reasoning
    tool_calls = _tool_call_field(release)
    if tool_calls is not None:
        fields["tool_calls"] = tool_calls
    fields["content"] = _content_field(release)
    return {"defaults": {"role": "assistant"}, **_start_anchor(release), "fields": fields}


def _release_of(model: str) -> Release:
    from ._api import get_formatter

    formatter = get_formatter(model)
    release = getattr(formatter.input_processor, "release", None)
    from .release import Release

    if not isinstance(release, Release):
        raise ExportError(
            f"model {quote(model)} is not declared as a release (its plugin brings its own "
            "processors), so there is no output format to export"
        )
    return release


def response_template(model: str, *, spelling: Spelling = "transformers") -> dict[str, Any]:
    """A model's output format as a ``response_template`` for transformers or vLLM.

    ``model`` is any name a plugin resolves (``granite-4.2``, an Ollama tag...);
    ``spelling`` the runtime: ``"transformers"`` names the reasoning field
    ``reasoning_content``, ``"vllm"`` (its ``hf`` parsers) ``thinking``. Raises
    :class:`~granite_formatters.UnknownModelError` for an unknown name and
    :class:`ExportError` for a release whose syntax has no declarative equivalent.
    """
    return release_response_template(_release_of(model), spelling=spelling)


def write_response_template(template: dict[str, Any], folder: str | Path) -> Path:
    """Write ``template`` as the ``response_template`` of ``folder/tokenizer_config.json``,
    keeping every other key of the file (created when absent). Returns the file's path.

    Raises :class:`ExportError` when the folder does not exist or the file is not a JSON
    object.
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise ExportError(f"{quote(str(folder))} is not a folder")
    path = folder / "tokenizer_config.json"
    config: Any = {}
    try:
        if path.exists():
            try:
                config = json.loads(path.read_text(encoding="utf-8"))
            except (UnicodeDecodeError, ValueError, RecursionError) as exc:
                raise ExportError(
                    f"{path} is not valid JSON ({_short(exc)}); it was left as it is"
                ) from None
            if not isinstance(config, dict):
                raise ExportError(
                    f"{path} holds a JSON {_JSON_NAMES.get(type(config), 'value')}, not an "
                    "object; it was left as it is"
                )
        config["response_template"] = template
        path.write_text(json.dumps(config, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    except OSError as exc:
        raise ExportError(f"cannot write {path}: {exc.strerror or _short(exc)}") from None
    return path


_JSON_NAMES = {list: "array", str: "string", int: "number", float: "number", bool: "boolean"}
_JSON_NAMES[type(None)] = "null"


def _short(exc: BaseException) -> str:
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return text[:120]
