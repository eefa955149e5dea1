"""The response-template export (granite_formatters._export) and its CLI command: the
template made from a release's syntaxes, --into keeping the file's other keys, errors.

The release here is a toy (ChatML turns) composed of the core's syntaxes, so that the
core's tests need no plugin; tests/transformers runs the bundled releases' templates
through transformers itself."""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import attrs
import pytest

from granite_formatters import _cli as cli
from granite_formatters import hookimpl
from granite_formatters._export import (
    ExportError,
    release_response_template,
    response_template,
    write_response_template,
)
from granite_formatters._jsonscan import JsonScanner
from granite_formatters._plugins import PluginHost
from granite_formatters.syntax import (
    GRANITE_ROLES,
    JSON_BLOCKS,
    JSON_LIST,
    OPENED_THINK,
    THOUGHT_PHRASES,
    XML_FUNCTIONS,
    DatedLayout,
    DatedSystemPrompt,
    HistoryCall,
    HistoryWriter,
    ToolCallDefaults,
)
from granite_formatters.syntax._controls import CONTROLS

from support.toy_release import toy_release

XML_TOY = toy_release("Toy XML", tool_calls=XML_FUNCTIONS, reasoning=OPENED_THINK)

XML_TEMPLATE: dict[str, Any] = {
    "defaults": {"role": "assistant"},
    "start_anchor": "<|im_start|>assistant\n",
    "fields": {
        "reasoning_content": {"open": "<think>", "close": "</think>", "content": "text"},
        "tool_calls": {
            "open_pattern": r"\s*<tool_call>\s*<function=(?P<name>[^>\n]+)>",
            "close_pattern": r"</function>\s*</tool_call>",
            "repeats": True,
            "content": "xml-inline",
            "content_args": {
                "tag_pattern": r"<parameter=(?P<key>[^>\n]+)>\n?(?P<value>.*?)\n?</parameter>"
            },
            "transform": {
                "type": "function",
                "function": {"name": "{name}", "arguments": "{content}"},
            },
        },
        "content": {"close_pattern": r"\s*(?:<\|im_end\|>)", "content": "text"},
    },
}


class _ToyPlugin:
    @hookimpl
    def register_formatters(self, register: Any) -> None:
        register("toy-xml", release=XML_TOY)
        register("toy-blocks", release=attrs.evolve(XML_TOY, tool_calls=JSON_BLOCKS))


@pytest.fixture
def toy(default_host: PluginHost) -> PluginHost:
    default_host.register_plugin(_ToyPlugin(), name="toy-export")
    return default_host


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(list(argv), stdout=out, stderr=err, stdin=io.StringIO(""))
    return code, out.getvalue(), err.getvalue()


def test_xml_functions_and_opened_think_make_the_exact_template() -> None:
    assert release_response_template(XML_TOY) == XML_TEMPLATE


def test_vllm_spelling_names_the_reasoning_field_thinking() -> None:
    fields = release_response_template(XML_TOY, spelling="vllm")["fields"]
    assert list(fields) == ["thinking", "tool_calls", "content"]
    assert fields["thinking"] == XML_TEMPLATE["fields"]["reasoning_content"]


def test_json_blocks_without_reasoning() -> None:
    release = toy_release(tool_calls=JSON_BLOCKS)
    assert release_response_template(release)["fields"] == {
        "tool_calls": {
            "open_pattern": r"\s*<tool_call>",
            "close": "</tool_call>",
            "repeats": True,
            "content": "json",
            "transform": {"type": "function", "function": "{content}"},
        },
        "content": {"close_pattern": r"\s*(?:<\|im_end\|>)", "content": "text"},
    }


def test_granite3_shape_json_list_phrases_controls_anchor_and_dropped_tokens() -> None:
    release = attrs.evolve(
        toy_release(tool_calls=JSON_LIST, reasoning=THOUGHT_PHRASES),
        turns=GRANITE_ROLES,
        stop_strings=("<|end_of_text|>",),
        layout=DatedLayout(DatedSystemPrompt("{date}", "", "", "", "", "", ""), controls=CONTROLS),
        tool_call_markers=("<tool_call>",),
        tool_call_ends=("</tool_call>",),
        dropped_tokens=("<|end_of_text|>",),
    )
    template = release_response_template(release)
    assert template["start_anchor_pattern"] == (
        r"<\|start_of_role\|>assistant(?: \{[^\n]*\})?<\|end_of_role\|>"
    )
    assert "start_anchor" not in template
    assert template["fields"] == {
        "reasoning_content": {
            "open": [
                "Here is my thought process:",
                "Here's my thought process:",
                "Here\u2019s my thought process:",
            ],
            "close": ["Here is my response:", "Here's my response:", "Here\u2019s my response:"],
            "content": "text",
        },
        "tool_calls": {
            "open_pattern": r"\s*(?:<\|tool_call\|>|<tool_call>)",
            "content": "json",
            "transform": {
                "type": "function",
                "function": {"name": "{name}", "arguments": "{arguments}"},
            },
            "transform_each": True,
            "close": "</tool_call>",
        },
        "content": {"close_pattern": r"\s*(?:<\|end_of_text\|>)", "content": "text"},
    }


def test_a_release_without_tool_calls_or_reasoning_has_content_only() -> None:
    assert release_response_template(toy_release())["fields"] == {
        "content": {"close_pattern": r"\s*(?:<\|im_end\|>)", "content": "text"}
    }


def test_a_tool_call_syntax_of_its_own_is_refused() -> None:
    @attrs.frozen
    class Custom(ToolCallDefaults):
        open: str = "[CALL]"
        close: str = "[/CALL]"

        def body_start(self, char: str) -> str | None:
            return None

        def reader(self) -> JsonScanner:
            return JsonScanner()

        def reader_note(self, error: str) -> str:
            return error

        def not_closed_note(self) -> str:
            return "is not closed"

        def unfinished_note(self) -> str:
            return "is cut off"

        def decode(self, body: str, *args: Any, **kwargs: Any) -> str:
            return "never"

        def write(self, text: str, calls: Iterable[HistoryCall], writer: HistoryWriter) -> str:
            return text

    with pytest.raises(ExportError, match=r"Toy's tool-call syntax \(Custom\) has no declarative"):
        release_response_template(toy_release(tool_calls=Custom()))


def test_an_unknown_spelling_is_refused() -> None:
    with pytest.raises(ExportError, match="unknown runtime 'ollama'"):
        release_response_template(XML_TOY, spelling="ollama")  # type: ignore[arg-type]


def test_response_template_resolves_a_model_name(toy: PluginHost) -> None:
    assert response_template("toy-xml") == XML_TEMPLATE


def test_write_creates_the_file(tmp_path: Path) -> None:
    path = write_response_template(XML_TEMPLATE, tmp_path)
    assert path == tmp_path / "tokenizer_config.json"
    assert json.loads(path.read_text(encoding="utf-8")) == {"response_template": XML_TEMPLATE}


def test_write_keeps_every_other_key_and_replaces_an_old_template(tmp_path: Path) -> None:
    config = {"chat_template": "{{ x }}", "model_max_length": 8192, "response_template": {"a": 1}}
    (tmp_path / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    write_response_template(XML_TEMPLATE, tmp_path)
    written = json.loads((tmp_path / "tokenizer_config.json").read_text(encoding="utf-8"))
    assert written == {**config, "response_template": XML_TEMPLATE}
    assert list(written) == ["chat_template", "model_max_length", "response_template"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[1, 2]", "holds a JSON array, not an object; it was left as it is"),
        ("null", "holds a JSON null, not an object"),
        ('{"a": ', "is not valid JSON (Expecting value: line 1 column 7 (char 6))"),
    ],
)
def test_write_refuses_a_file_that_is_not_a_json_object(
    tmp_path: Path, text: str, message: str
) -> None:
    (tmp_path / "tokenizer_config.json").write_text(text, encoding="utf-8")
    with pytest.raises(ExportError, match=re.escape(f"tokenizer_config.json {message}")):
        write_response_template(XML_TEMPLATE, tmp_path)
    assert (tmp_path / "tokenizer_config.json").read_text(encoding="utf-8") == text


def test_write_refuses_a_missing_folder(tmp_path: Path) -> None:
    with pytest.raises(ExportError, match="is not a folder"):
        write_response_template(XML_TEMPLATE, tmp_path / "absent")


def test_cli_prints_the_template(toy: PluginHost) -> None:
    code, out, err = run("export", "response-template", "toy-xml")
    assert (code, err) == (0, "")
    assert json.loads(out) == XML_TEMPLATE


def test_cli_for_vllm(toy: PluginHost) -> None:
    code, out, _ = run("export", "response-template", "toy-blocks", "--for", "vllm")
    assert code == 0
    assert list(json.loads(out)["fields"]) == ["thinking", "tool_calls", "content"]


def test_cli_into_writes_and_keeps_other_keys(toy: PluginHost, tmp_path: Path) -> None:
    (tmp_path / "tokenizer_config.json").write_text('{"eos_token": "<|im_end|>"}', "utf-8")
    code, out, err = run("export", "response-template", "toy-xml", "--into", str(tmp_path))
    assert (code, err) == (0, "")
    path = tmp_path / "tokenizer_config.json"
    assert out == f"wrote the response_template of toy-xml (transformers) into {path}\n"
    written = json.loads(path.read_text(encoding="utf-8"))
    assert written == {"eos_token": "<|im_end|>", "response_template": XML_TEMPLATE}


def test_cli_errors_are_one_line_without_traceback(toy: PluginHost, tmp_path: Path) -> None:
    (tmp_path / "tokenizer_config.json").write_text('"text"', "utf-8")
    code, out, err = run("export", "response-template", "toy-xml", "--into", str(tmp_path))
    assert (code, out) == (1, "")
    assert err == (
        f"granite-format: error: {tmp_path / 'tokenizer_config.json'} holds a JSON string, "
        "not an object; it was left as it is\n"
    )
    code, out, err = run("export", "response-template", "toy-xlm")
    assert (code, out) == (1, "")
    assert err.startswith("granite-format: error: Unknown model 'toy-xlm'.")
    assert err.count("\n") == 1


def test_cli_refuses_a_model_given_as_processors(toy: PluginHost) -> None:
    toy.register_plugin(_ProcessorsPlugin(), name="toy-processors")
    code, _, err = run("export", "response-template", "toy-echo")
    assert code == 1
    assert err == (
        "granite-format: error: model 'toy-echo' is not declared as a release (its plugin "
        "brings its own processors), so there is no output format to export\n"
    )


class _ProcessorsPlugin:
    @hookimpl
    def register_formatters(self, register: Any) -> None:
        from support.toy_plugins import EchoInput, EchoOutput

        register("toy-echo", input_processor=EchoInput, output_processor=EchoOutput)


def test_export_help_ends_with_an_example(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["export", "response-template", "--help"])
    assert capsys.readouterr().out.endswith(
        "example:\n"
        "  granite-format export response-template granite-4.2-8b --into ./granite-4.2-8b\n"
        "  granite-format export response-template granite-3.3-8b-instruct --for vllm\n"
    )
