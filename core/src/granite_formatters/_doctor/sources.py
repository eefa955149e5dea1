"""Where runtimes keep a chat template, and reading it from there.

A path given to the doctor is one of: a GGUF file (``tokenizer.chat_template`` and the
named variants ``tokenizer.chat_template.<name>``), a Hugging Face model folder
(``chat_template.jinja``, else ``tokenizer_config.json``), a ``tokenizer_config.json``
(``chat_template`` a string, or a list of ``{"name", "template"}``), an Ollama Modelfile
(a file named ``Modelfile`` or any text whose first instruction is ``FROM``), or any
other text file, taken as a Jinja chat template.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Literal

import attrs

from .._errors import FormatterError, quote

__all__ = ["DoctorError", "Kind", "Source", "Template", "read_source"]

Kind = Literal["gguf", "hf-folder", "tokenizer-config", "jinja", "modelfile"]

_GGUF_KEY = "tokenizer.chat_template"
_MODELFILE_START = re.compile(r"\A(?:\s*#[^\n]*\n)*\s*FROM\s", re.I)


class DoctorError(FormatterError, ValueError):
    """A path the doctor cannot read as a model's template."""


@attrs.frozen
class Template:
    """One chat template found at the path: ``default`` or its name, and its text."""

    name: str
    text: str


@attrs.frozen
class Source:
    """What the path is and the chat templates (or Modelfile text) found in it."""

    path: str
    kind: Kind
    templates: tuple[Template, ...]
    modelfile: str | None = None


def _text(path: Path) -> str:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise DoctorError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise DoctorError(f"{path} is not UTF-8 text") from None


def _config_templates(path: Path) -> tuple[Template, ...]:
    try:
        config = json.loads(_text(path))
    except json.JSONDecodeError as exc:
        raise DoctorError(f"{path} is not JSON: {exc.msg} (line {exc.lineno})") from None
    value: Any = config.get("chat_template") if isinstance(config, dict) else None
    if isinstance(value, str):
        return (Template("default", value),)
    if isinstance(value, list) and all(
        isinstance(item, dict)
        and isinstance(item.get("name"), str)
        and isinstance(item.get("template"), str)
        for item in value
    ):
        return tuple(Template(item["name"], item["template"]) for item in value)
    if value is None:
        return ()
    raise DoctorError(
        f"{path}: chat_template is neither a string nor a list of {{name, template}} objects "
        f"(it is {quote(json.dumps(value))})"
    )


def _gguf_templates(path: Path) -> tuple[Template, ...]:
    from .gguf import read_strings

    found = read_strings(path)
    templates = [Template("default", found[_GGUF_KEY])] if _GGUF_KEY in found else []
    prefix = _GGUF_KEY + "."
    templates += [
        Template(key[len(prefix) :], text)
        for key, text in sorted(found.items())
        if key.startswith(prefix)
    ]
    return tuple(templates)


def read_source(path_text: str) -> Source:
    """The chat templates at ``path_text`` (see the module docstring)."""
    path = Path(path_text)
    if path.is_dir():
        jinja = path / "chat_template.jinja"
        config = path / "tokenizer_config.json"
        templates: tuple[Template, ...] = ()
        if jinja.is_file():
            templates = (Template("default", _text(jinja)),)
        if config.is_file():
            named = _config_templates(config)
            # chat_template.jinja wins over the config's default, as in transformers
            templates += tuple(t for t in named if not (templates and t.name == "default"))
        if not templates:
            raise DoctorError(
                f"{path} has no chat template (no chat_template.jinja, and no chat_template "
                "in tokenizer_config.json)"
            )
        return Source(str(path), "hf-folder", templates)
    if not path.is_file():
        raise DoctorError(f"no such file or folder: {quote(path_text)}")
    with path.open("rb") as stream:
        head = stream.read(4)
    if head == b"GGUF":
        templates = _gguf_templates(path)
        if not templates:
            raise DoctorError(f"{path} has no tokenizer.chat_template in its GGUF metadata")
        return Source(str(path), "gguf", templates)
    if path.name.endswith(".json"):
        templates = _config_templates(path)
        if not templates:
            raise DoctorError(f"{path} has no chat_template")
        return Source(str(path), "tokenizer-config", templates)
    text = _text(path)
    if path.name == "Modelfile" or _MODELFILE_START.match(text):
        return Source(str(path), "modelfile", (), modelfile=text)
    return Source(str(path), "jinja", (Template("default", text),))
