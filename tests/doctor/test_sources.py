"""Reading a template from where runtimes keep it, and the errors for what is not one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from granite_formatters._doctor.sources import DoctorError, Template, read_source

NAMED = [{"name": "default", "template": "D"}, {"name": "tool_use", "template": "T"}]


def test_a_tokenizer_config_with_a_string_or_a_list(tmp_path: Path) -> None:
    config = tmp_path / "tokenizer_config.json"
    config.write_text(json.dumps({"chat_template": "X", "eos_token": "<e>"}), encoding="utf-8")
    source = read_source(str(config))
    assert (source.kind, source.templates) == ("tokenizer-config", (Template("default", "X"),))
    config.write_text(json.dumps({"chat_template": NAMED}), encoding="utf-8")
    assert read_source(str(config)).templates == (
        Template("default", "D"),
        Template("tool_use", "T"),
    )


def test_a_model_folder_prefers_chat_template_jinja(tmp_path: Path) -> None:
    (tmp_path / "tokenizer_config.json").write_text(
        json.dumps({"chat_template": NAMED}), encoding="utf-8"
    )
    assert read_source(str(tmp_path)).templates == (
        Template("default", "D"),
        Template("tool_use", "T"),
    )
    (tmp_path / "chat_template.jinja").write_text("J", encoding="utf-8")
    source = read_source(str(tmp_path))
    assert source.kind == "hf-folder"
    assert source.templates == (Template("default", "J"), Template("tool_use", "T"))


def test_a_jinja_file_and_a_modelfile(tmp_path: Path) -> None:
    jinja = tmp_path / "chat_template.jinja"
    jinja.write_text("{{ x }}\r\n", encoding="utf-8")
    assert read_source(str(jinja)).templates == (Template("default", "{{ x }}\r\n"),)
    modelfile = tmp_path / "granite.modelfile"
    modelfile.write_text("# comment\nFROM granite4:tiny-h\n", encoding="utf-8")
    source = read_source(str(modelfile))
    assert (source.kind, source.templates) == ("modelfile", ())
    assert source.modelfile == "# comment\nFROM granite4:tiny-h\n"


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("tokenizer_config.json", "{not json", "is not JSON: Expecting property name"),
        ("tokenizer_config.json", '{"eos_token": "x"}', "has no chat_template"),
        ("tokenizer_config.json", '{"chat_template": 3}', "chat_template is neither a string"),
        ("tokenizer_config.json", '{"chat_template": [{"name": 1}]}', "is neither a string"),
        ("t.jinja", b"\xff\xfe{{", "is not UTF-8 text"),
    ],
)
def test_errors_name_the_file(
    tmp_path: Path, name: str, content: str | bytes, message: str
) -> None:
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    with pytest.raises(DoctorError, match=message) as info:
        read_source(str(path))
    assert str(path) in str(info.value)


def test_a_folder_without_a_template_and_a_missing_path(tmp_path: Path) -> None:
    with pytest.raises(DoctorError, match="has no chat template"):
        read_source(str(tmp_path))
    with pytest.raises(DoctorError, match="no such file or folder: '.*nothing'"):
        read_source(str(tmp_path / "nothing"))
