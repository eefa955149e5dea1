"""What an Ollama Modelfile declares about prompts, tools and thinking.

Ollama renders a prompt with the Modelfile's Go ``TEMPLATE`` unless a ``RENDERER`` line
names one of its built-in renderers, and reads tool calls and thinking with a built-in
``PARSER`` when one is named. From the template it infers capabilities: tools when the
template uses ``.Tools``, thinking when it uses ``.Think``. ``PARAMETER stop`` values end
generation. None of this is a Granite chat template, so the doctor says what it means and
how to run the model through ``granite-format serve`` instead, which sends Ollama the
exact prompt in raw mode (``/api/generate`` with ``raw: true``).
"""

from __future__ import annotations

import re

import attrs

__all__ = ["DEFAULT_BACKEND", "Modelfile", "declared", "parameter_stops", "read_modelfile"]

#: Ollama's address unless told otherwise.
DEFAULT_BACKEND = "http://127.0.0.1:11434"

_LINE = re.compile(r"^\s*([A-Za-z]+)\s+(.*)$")


@attrs.frozen
class Modelfile:
    """The Modelfile's prompt-related instructions and what Ollama makes of them."""

    source: str | None
    template: str | None
    renderer: str | None
    parser: str | None
    stops: tuple[str, ...]
    tools: bool
    thinking: bool
    notes: tuple[str, ...]
    serve_command: str


def _unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] == '"':
        return value[1:-1]
    return value


def _instructions(text: str) -> list[tuple[str, str]]:
    """``(INSTRUCTION, argument)`` pairs; triple-quoted arguments may span lines."""
    found: list[tuple[str, str]] = []
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        match = _LINE.match(lines[index])
        index += 1
        if match is None or lines[index - 1].lstrip().startswith("#"):
            continue
        name, argument = match.group(1).upper(), match.group(2)
        if argument.startswith('"""'):
            body = argument[3:]
            while '"""' not in body and index < len(lines):
                body += "\n" + lines[index]
                index += 1
            argument = body.split('"""', 1)[0]
        found.append((name, argument))
    return found


def read_modelfile(text: str, model: str | None = None) -> Modelfile:
    """What ``text`` (a Modelfile) declares; ``model`` is our name for the model, used in
    the ``serve`` command (default: the ``FROM`` value)."""
    source = template = renderer = parser = None
    stops: list[str] = []
    for name, argument in _instructions(text):
        if name == "FROM":
            source = argument.strip()
        elif name == "TEMPLATE":
            template = _unquote(argument) if not argument.count("\n") else argument
        elif name == "RENDERER":
            renderer = argument.strip()
        elif name == "PARSER":
            parser = argument.strip()
        elif name == "PARAMETER":
            stops += parameter_stops(argument)
    return declared(source, template, renderer, parser, tuple(stops), model=model)


def parameter_stops(line: str) -> list[str]:
    """The stop value of a ``stop VALUE`` parameter line (none for another parameter)."""
    key, _, value = line.strip().partition(" ")
    return [_unquote(value)] if key == "stop" else []


def declared(
    source: str | None,
    template: str | None,
    renderer: str | None,
    parser: str | None,
    stops: tuple[str, ...],
    *,
    model: str | None = None,
    tag: str | None = None,
    backend: str = DEFAULT_BACKEND,
    notes: tuple[str, ...] = (),
) -> Modelfile:
    """What Ollama makes of a model's prompt instructions. ``model`` is our name for the
    model and ``tag`` Ollama's (defaults: ``source``), ``backend`` Ollama's URL, for the
    ``serve`` command; ``notes`` are added to the findings."""
    tools = renderer is not None or parser is not None or ".Tools" in (template or "")
    thinking = parser is not None or ".Think" in (template or "")
    found: list[str] = []
    if renderer:
        found.append(f"RENDERER {renderer}: Ollama builds the prompt in Go, not from TEMPLATE")
    elif template is None:
        found.append("no TEMPLATE: Ollama uses the template of the FROM model or its default")
    else:
        found.append("TEMPLATE: a Go template, not the official Jinja one")
    if not tools:
        found.append("no .Tools in TEMPLATE and no RENDERER/PARSER: Ollama lists no tools")
    if parser:
        found.append(f"PARSER {parser}: Ollama reads tool calls and thinking with it")
    elif tools:
        found.append("no PARSER: Ollama finds tool calls by matching the TEMPLATE's shape")
    if not thinking:
        found.append("no .Think and no PARSER: Ollama does not offer thinking")
    if stops:
        found.append("stop: " + ", ".join(repr(stop) for stop in stops))
    name = model or source or "MODEL"
    tag = tag or source or "TAG"
    command = f"granite-format serve --backend {backend} --backend-type ollama --model {name}={tag}"
    return Modelfile(
        source,
        template,
        renderer,
        parser,
        stops,
        tools,
        thinking,
        (*found, *notes),
        command,
    )
