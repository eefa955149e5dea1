"""Which reference a template's text is: the official templates, their variants and
synthetic patches (CRLF, re-indentation, a changed default, a dropped tojson argument)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from granite_formatters._doctor.identify import compare, reference_folder, references

from .conftest import official

OFFICIAL = [
    "granite-3.2-8b-instruct.jinja",
    "granite-3.3-8b-instruct.jinja",
    "granite-4.0.jinja",
    "granite-4.2.jinja",
    "variants/granite-3.3-2b-instruct.llama-cpp-modified.jinja",
    "variants/granite-4.2.rev-launch-no-reasoning-effort.jinja",
]


@pytest.mark.parametrize("name", OFFICIAL)
def test_each_reference_is_itself_exactly(reference_dir: Path, name: str) -> None:
    match = compare(official(name), references(reference_dir))
    assert match is not None
    assert (match.verdict, match.references, match.diff) == ("exact", (name,), ())


def test_identical_official_texts_are_ambiguous(reference_dir: Path) -> None:
    match = compare(official("granite-4.1.jinja"), references(reference_dir))
    assert match is not None
    assert match.verdict == "ambiguous"
    assert match.references == (
        "granite-4.1.jinja",
        "variants/granite-4.0.rev-2025-10-no-default-system.jinja",
    )


def test_crlf_and_reindentation_are_whitespace_only(reference_dir: Path) -> None:
    text = official("granite-3.3-8b-instruct.jinja")
    known = references(reference_dir)
    crlf = compare(text.replace("\n", "\r\n"), known)
    assert crlf is not None
    assert (crlf.verdict, crlf.references) == ("whitespace", ("granite-3.3-8b-instruct.jinja",))
    indented = re.sub(r"^(\s*)\{%", r"\1    {%", text, flags=re.M)
    assert indented != text
    moved = compare(indented, known)
    assert moved is not None
    assert (moved.verdict, moved.references) == ("whitespace", ("granite-3.3-8b-instruct.jinja",))
    assert moved.diff[:2] == ("--- granite-3.3-8b-instruct.jinja", "+++ this template")


def test_a_changed_default_is_drift_with_the_line_shown(reference_dir: Path) -> None:
    before = "{%- set enable_thinking = enable_thinking if enable_thinking is defined else True %}"
    after = before.replace("else True", "else False")
    text = official("granite-4.2.jinja")
    assert text.count(before) == 1
    match = compare(text.replace(before, after), references(reference_dir))
    assert match is not None
    assert match.verdict == "drifted"
    assert match.references == ("granite-4.2.jinja",)
    assert "-" + before in match.diff and "+" + after in match.diff
    assert 0.95 < match.similarity < 1.0


def test_a_dropped_tojson_argument_is_drift(reference_dir: Path) -> None:
    text = official("granite-3.3-8b-instruct.jinja")
    patched = text.replace("tojson(indent=4)", "tojson")
    match = compare(patched, references(reference_dir))
    assert match is not None
    assert (match.verdict, match.references) == ("drifted", ("granite-3.3-8b-instruct.jinja",))
    changed = [line for line in match.diff if line.startswith(("+", "-"))][2:]
    assert changed == [
        "-     {{- available_tools | tojson(indent=4) }}",
        "+     {{- available_tools | tojson }}",
    ]


def test_no_references_no_comparison() -> None:
    assert compare("{{ x }}", {}) is None


def test_the_reference_folder(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    assert reference_folder(str(tmp_path)) == tmp_path
    monkeypatch.setenv("GRANITE_FORMATTERS_SHARED", str(tmp_path))
    assert reference_folder(None) is None  # no chat-templates folder in it
    (tmp_path / "chat-templates" / "sub").mkdir(parents=True)
    (tmp_path / "chat-templates" / "sub" / "a.jinja").write_text("A", encoding="utf-8")
    (tmp_path / "chat-templates" / "notes.txt").write_text("B", encoding="utf-8")
    assert reference_folder(None) == tmp_path / "chat-templates"
    assert references(tmp_path / "chat-templates") == {"sub/a.jinja": "A"}
    monkeypatch.delenv("GRANITE_FORMATTERS_SHARED")
    assert reference_folder(None) is None
