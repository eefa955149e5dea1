"""The GGUF metadata reader against files written by the ``gguf`` package's writer."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from granite_formatters._doctor.gguf import GGUFError, read_strings
from granite_formatters._doctor.sources import read_source

gguf = pytest.importorskip("gguf", reason="the gguf package writes the test's GGUF files")


def write_gguf(path: Path, strings: dict[str, str], chat_template: object = None) -> Path:
    """A metadata-only GGUF file (no tensors) with other value types around the strings."""
    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_uint32("llama.block_count", 1)
    writer.add_array("tokenizer.ggml.tokens", ["a", "b", "<|end_of_text|>"])
    writer.add_array("tokenizer.ggml.scores", [0.0, -1.5, 2.25])
    writer.add_bool("tokenizer.ggml.add_bos_token", False)
    writer.add_float64("general.some_float", 1.5)
    for key, value in strings.items():
        writer.add_string(key, value)
    if chat_template is not None:
        writer.add_chat_template(chat_template)
    writer.add_int64("general.after", -7)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


def test_reads_the_default_and_named_chat_templates(tmp_path: Path) -> None:
    path = write_gguf(
        tmp_path / "m.gguf",
        {"general.name": "Granite"},
        [
            {"name": "default", "template": "{{ messages[0].content }}"},
            {"name": "tool_use", "template": "{{ tools | tojson }}\n"},
        ],
    )
    strings = read_strings(path)
    assert strings["tokenizer.chat_template"] == "{{ messages[0].content }}"
    assert strings["tokenizer.chat_template.tool_use"] == "{{ tools | tojson }}\n"
    assert strings["general.name"] == "Granite"
    assert strings["general.architecture"] == "llama"
    source = read_source(str(path))
    assert source.kind == "gguf"
    assert [(t.name, t.text) for t in source.templates] == [
        ("default", "{{ messages[0].content }}"),
        ("tool_use", "{{ tools | tojson }}\n"),
    ]


@settings(max_examples=25, deadline=None)
@given(
    st.dictionaries(
        st.text("abcdefghij.", min_size=1, max_size=12).map(lambda k: "x." + k),
        # the writer drops empty strings; surrogates are not UTF-8
        st.text(st.characters(exclude_categories=["Cs"]), min_size=1, max_size=40),
        max_size=5,
    )
)
def test_every_string_value_reads_back(
    tmp_path_factory: pytest.TempPathFactory, strings: dict[str, str]
) -> None:
    path = write_gguf(tmp_path_factory.mktemp("g") / "m.gguf", strings)
    found = read_strings(path)
    assert {k: v for k, v in found.items() if k.startswith("x.")} == strings


def test_a_gguf_without_a_chat_template_is_an_error(tmp_path: Path) -> None:
    path = write_gguf(tmp_path / "m.gguf", {})
    with pytest.raises(ValueError, match="has no tokenizer.chat_template"):
        read_source(str(path))


@pytest.mark.parametrize("keep", [5, 24, 40, 90])
def test_a_truncated_file_is_an_error_not_a_huge_read(tmp_path: Path, keep: int) -> None:
    whole = write_gguf(tmp_path / "m.gguf", {"general.name": "Granite"}, "{{ x }}")
    cut = tmp_path / "cut.gguf"
    cut.write_bytes(whole.read_bytes()[:keep])
    with pytest.raises(GGUFError, match="runs past the end of the file"):
        read_strings(cut)


def test_a_file_that_is_not_gguf_or_of_another_version(tmp_path: Path) -> None:
    other = tmp_path / "x.gguf"
    other.write_bytes(b"GGML" + bytes(20))
    with pytest.raises(GGUFError, match="is not a GGUF file"):
        read_strings(other)
    other.write_bytes(b"GGUF" + (1).to_bytes(4, "little") + bytes(16))
    with pytest.raises(GGUFError, match="GGUF version 1 is not supported"):
        read_strings(other)
