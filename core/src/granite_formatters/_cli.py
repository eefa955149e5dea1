"""The ``granite-format`` command.

``granite-format demo`` renders and parses a bundled example; ``render`` and ``parse``
do the same for your own files; ``models``, ``resolve`` and ``plugins`` show what is
installed. A user error exits with status 1 and a one-line message; a usage error
exits with status 2. No user input, output encoding or closed pipe makes it print a
traceback: input is read as bytes and decoded as UTF-8, JSON output falls back to
ASCII escapes when stdout cannot encode it, and a failed write (closed stdout, full
disk) is one line on stderr; a pipe its reader closed (``| head``) ends the command
quietly with status 141 (see docs/cli.md).
"""

from __future__ import annotations

import argparse
import codecs
import datetime
import json
import os
import sys
from collections.abc import Iterator, Sequence
from typing import IO, Any, NoReturn, TextIO

__all__ = ["DEBUG_VARIABLE", "EXAMPLES", "build_parser", "main"]


#: How many bytes ``parse --stream`` asks for at a time (it takes what is there).
_CHUNK = 65536

#: Set to print the traceback of an unexpected error instead of one line.
DEBUG_VARIABLE = "GRANITE_FORMATTERS_DEBUG"


class _UserError(Exception):
    """A problem to report in one line, without a traceback."""


class _OutputError(Exception):
    """Writing the output failed (closed stdout, full disk, broken pipe, encoding)."""


def _label(path: str | None) -> str:
    return "(stdin)" if path is None or path == "-" else path


def _not_utf8(path: str | None, exc: UnicodeDecodeError, offset: int = 0) -> _UserError:
    return _UserError(
        f"cannot read {_label(path)}: not UTF-8 text ({exc.reason} at byte {offset + exc.start})"
    )


def _chunks(path: str | None, stdin: TextIO | None) -> Iterator[bytes | str]:
    """Yield the input as it arrives: bytes from a file or a binary stdin, else text."""
    if path is None or path == "-":
        if stdin is None:
            raise _UserError("cannot read (stdin): standard input is closed")
        binary: IO[bytes] | None = getattr(stdin, "buffer", None)
        if binary is None:  # a text stream without bytes underneath (tests, StringIO)
            while chunk := stdin.read(_CHUNK):
                yield chunk
            return
        read = getattr(binary, "read1", binary.read)
        while block := read(_CHUNK):
            yield block
        return
    try:
        handle = open(path, "rb")  # noqa: SIM115 - closed below
    except OSError as exc:
        raise _UserError(f"cannot read {path}: {exc.strerror or exc}") from None
    with handle:
        while block := handle.read1(_CHUNK):
            yield block


def _decoded(path: str | None, stdin: TextIO | None) -> Iterator[str]:
    """The input as UTF-8 text, chunk by chunk (a character split across chunks is kept)."""
    decoder = codecs.getincrementaldecoder("utf-8")("strict")
    total = start = 0  # bytes read so far; input offset of the bytes being decoded
    try:
        for chunk in _chunks(path, stdin):
            if isinstance(chunk, str):
                yield chunk
                continue
            start = total - len(decoder.getstate()[0])
            total += len(chunk)
            text = decoder.decode(chunk)
            if text:
                yield text
        start = total - len(decoder.getstate()[0])
        if tail := decoder.decode(b"", final=True):
            yield tail
    except UnicodeDecodeError as exc:
        raise _not_utf8(path, exc, start) from None
    except OSError as exc:
        raise _UserError(f"cannot read {_label(path)}: {exc.strerror or exc}") from None


def _read_text(path: str | None, stdin: TextIO | None) -> str:
    return "".join(_decoded(path, stdin))


def _read_json(path: str | None, stdin: TextIO, what: str) -> Any:
    text = _read_text(path, stdin)
    try:
        return json.loads(text)
    except ValueError as exc:
        raise _UserError(f"{what} {_label(path)} is not valid JSON: {exc}") from None
    except RecursionError:
        # (The library's own wording for a request it cannot descend into.)
        raise _UserError(
            f"{what} {_label(path)}: the request is nested too deeply to process"
        ) from None


def _parse_date(value: str) -> datetime.date:
    try:
        return datetime.date.fromisoformat(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a date in YYYY-MM-DD form: {value!r}") from None


def _json_text(data: Any, indent: int | None) -> str:
    try:
        return json.dumps(data, ensure_ascii=False, indent=indent)
    except (ValueError, TypeError, RecursionError) as exc:
        raise _UserError(f"cannot write the result as JSON: {exc}") from None


def _write_json(data: Any, out: TextIO, indent: int | None = 2) -> None:
    """Write ``data`` as JSON and a newline; ASCII escapes if stdout cannot encode it."""
    text = _json_text(data, indent) + "\n"
    try:
        out.write(text)
    except UnicodeEncodeError:
        # Lone surrogates (from JSON escapes in model output) or an ASCII-only stdout:
        # the escaped form is the same JSON value and every encoding can write it.
        out.write(json.dumps(data, ensure_ascii=True, indent=indent) + "\n")


def _dump(data: Any, out: TextIO) -> None:
    _write_json(data, out)


def _serialise(message: Any, openai: bool) -> Any:
    """The parsed message as JSON data (a serialisation problem is a user error)."""
    try:
        return message.to_openai() if openai else message.model_dump(mode="json")
    except (ValueError, TypeError, RecursionError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise _UserError(f"cannot serialise the parsed message: {first}") from None


def _plugin_dict(plugin: Any) -> dict[str, Any]:
    return {
        "name": plugin.name,
        "version": plugin.version,
        "source": plugin.source,
        "module": plugin.module,
        "bundled": plugin.bundled,
        "hooks": list(plugin.hooks),
        "models": list(plugin.models),
        "errors": list(plugin.errors),
    }


def _model_dict(model: Any) -> dict[str, Any]:
    return {
        "id": model.model_id,
        "aliases": list(model.aliases),
        "patterns": list(model.patterns),
        "description": model.description,
        "plugin": model.plugin.name,
        "plugin_version": model.plugin.version,
    }


def _table(rows: list[list[str]], out: TextIO) -> None:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=True)]
        out.write("  ".join(cells).rstrip())
        out.write("\n")


# -- commands -------------------------------------------------------------------------


def _cmd_render(args: argparse.Namespace, out: TextIO, stdin: TextIO) -> int:
    from . import get_formatter

    request = _read_json(args.file, stdin, "request")
    formatter = get_formatter(args.model)
    prompt = formatter.format(
        request,
        add_generation_prompt=not args.no_generation_prompt,
        today=args.date,
        special_tokens=args.special_tokens,
    )
    out.write(prompt)
    if args.newline:
        out.write("\n")
    return 0


def _cmd_parse(args: argparse.Namespace, out: TextIO, stdin: TextIO) -> int:
    from . import get_formatter

    if args.request and args.request in ("-",) and (args.file is None or args.file == "-"):
        raise _UserError("--request - and the model output cannot both come from stdin")
    request = _read_json(args.request, stdin, "request") if args.request else None
    formatter = get_formatter(args.model)
    if args.stream:
        return _stream(formatter, request, args.file, out, stdin, args.openai)
    text = _read_text(args.file, stdin)
    message = formatter.parse(text, request)
    _dump(_serialise(message, args.openai), out)
    return 0


def _stream(
    formatter: Any, request: Any, path: str | None, out: TextIO, stdin: TextIO, openai: bool
) -> int:
    """One JSON object per line, all of one schema: ``{"delta": ..., "message": ...}``.

    Each delta line has the OpenAI ``choices[].delta`` dict and ``"message": null``;
    the last line has ``"delta": null`` and the final parsed message. Input is fed to
    the parser as it arrives (whatever a read returns), not line by line.
    """
    parser = formatter.stream_parser(request)

    def emit(deltas: Any) -> None:
        for delta in deltas:
            _write_json({"delta": delta.to_openai(), "message": None}, out, indent=None)
        if deltas:
            out.flush()

    for text in _decoded(path, stdin):
        emit(parser.feed(text))
    emit(parser.close())
    message = parser.message
    if message is None:  # pragma: no cover - every StreamParser sets it on close
        raise _UserError("the stream parser returned no message")
    _write_json({"delta": None, "message": _serialise(message, openai)}, out, indent=None)
    return 0


def _cmd_models(args: argparse.Namespace, out: TextIO, stdin: TextIO) -> int:
    from . import list_models

    models = list_models()
    if args.json:
        _dump([_model_dict(m) for m in models], out)
        return 0
    if not models:
        out.write(
            "No formatter plugins are installed. From a clone of the repository: "
            "python3 -m pip install ./plugins/*\n"
        )
        return 0
    rows = [["MODEL", "PLUGIN", "ALIASES"]]
    rows += [[m.model_id, m.plugin.label, ", ".join(m.aliases)] for m in models]
    _table(rows, out)
    return 0


def _unknown_model(exc: Exception) -> str:
    """The one-line text of an unknown-model error."""
    return " ".join(line.strip() for line in str(exc).splitlines() if line.strip())


def _cmd_resolve(args: argparse.Namespace, out: TextIO, stdin: TextIO) -> int:
    from . import resolve_model
    from ._errors import UnknownModelError, quote

    try:
        resolution = resolve_model(args.name)
    except UnknownModelError as exc:
        if not args.json:
            raise
        _dump(
            {
                "query": args.name if len(args.name) <= 200 else quote(args.name, 200),
                "error": {
                    "type": type(exc).__name__,
                    "message": _unknown_model(exc),
                    "suggestions": list(exc.suggestions),
                },
            },
            out,
        )
        raise _UserError(_unknown_model(exc)) from None
    data = {
        "query": resolution.query,
        "model": resolution.model.model_id,
        "rule": resolution.rule,
        "matched": resolution.matched,
        "normalized": resolution.normalized,
        "plugin": resolution.model.plugin.name,
        "plugin_version": resolution.model.plugin.version,
    }
    if args.json:
        _dump(data, out)
    else:
        out.write(
            f"{resolution.query} -> {resolution.model.model_id} "
            f"(rule: {resolution.rule}, matched {resolution.matched!r}; "
            f"plugin {resolution.model.plugin.label})\n"
        )
    return 0


def _cmd_plugins(args: argparse.Namespace, out: TextIO, stdin: TextIO) -> int:
    from . import list_plugins

    plugins = list_plugins()
    if args.json:
        _dump([_plugin_dict(p) for p in plugins], out)
        return 0
    if not plugins:
        out.write("No plugins found.\n")
        return 0
    rows = [["PLUGIN", "VERSION", "MODELS", "PROBLEMS"]]
    for p in plugins:
        rows.append([p.name, p.version or "-", str(len(p.models)), "; ".join(p.errors) or "-"])
    _table(rows, out)
    return 0


def _cmd_demo(args: argparse.Namespace, out: TextIO, stdin: TextIO) -> int:
    from . import get_formatter, resolve_model
    from ._api import _registry

    if args.model is None:
        model = _registry().demo_model()
        if model is None:
            raise _UserError(
                "no installed plugin declares a demo; install one "
                "(from a clone of the repository: python3 -m pip install ./plugins/*)"
            )
    else:
        model = resolve_model(args.model).model
    demo = model.demo
    if demo is None:
        raise _UserError(
            f"the plugin {model.plugin.label} declares no demo for {model.model_id}; "
            "`granite-format demo` without --model picks a model that has one"
        )
    formatter = get_formatter(model.model_id)
    request = {"model": args.model or model.model_id, **demo.request}
    out.write(f"== Request (bundled example, model {model.model_id}) ==\n")
    _dump(request, out)
    out.write("\n== Prompt sent to the completions endpoint ==\n")
    out.write(formatter.format(request, today=demo.today))
    out.write("\n\n== Raw model output (sample) ==\n")
    out.write(demo.output)
    out.write("\n\n== Parsed assistant message ==\n")
    _dump(_serialise(formatter.parse(demo.output, request), openai=False), out)
    return 0


# -- entry point ----------------------------------------------------------------------


def _version_text() -> str:
    from . import __version__, list_plugins

    lines = [f"granite-format {__version__} (granite-formatters)"]
    plugins = list_plugins()
    if plugins:
        lines.append("plugins:")
        for p in plugins:
            status = "" if not p.errors else "  [problems: " + "; ".join(p.errors) + "]"
            lines.append(f"  {p.label}{status}")
    else:
        lines.append("plugins: none")
    return "\n".join(lines)


class _VersionAction(argparse.Action):
    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(
            option_strings, dest, nargs=0, help="show versions of the core and plugins"
        )

    def __call__(self, parser: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> NoReturn:
        if sys.stdout is None:
            parser.exit(1, "granite-format: error: cannot write the output: stdout is closed\n")
        try:
            sys.stdout.write(_version_text() + "\n")
            sys.stdout.flush()
        except BrokenPipeError:
            _silence_stdout()
            parser.exit(_CLOSED_PIPE_STATUS)
        except (OSError, UnicodeEncodeError) as exc:
            _silence_stdout()
            parser.exit(1, f"granite-format: error: cannot write the output: {_why(exc)}\n")
        parser.exit(0)


#: One example per subcommand, shown at the end of its ``--help`` page (and in docs/cli.md).
EXAMPLES: dict[str, str] = {
    "demo": "granite-format demo -m granite3.3:8b",
    "render": "granite-format render -m granite3.3:8b --date 2025-04-16 request.json",
    "parse": "granite-format parse -m granite3.3:8b --request request.json output.txt",
    "models": "granite-format models --json",
    "resolve": "granite-format resolve ollama/granite3.2:8b",
    "plugins": "granite-format plugins",
    "serve": "granite-format serve --backend http://127.0.0.1:8001/v1",
    "batch": "granite-format batch in.jsonl --backend http://127.0.0.1:8001/v1 -o out.jsonl",
    "export": "granite-format export response-template granite-4.2-8b --into ./granite-4.2-8b",
    "doctor": "granite-format doctor ./granite-3.3-2b-instruct-Q4_K_M.gguf",
}


def _epilog(*lines: str) -> str:
    return "example:\n" + "\n".join(f"  {line}" for line in lines)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="granite-format",
        description="Render exact prompts for IBM Granite chat models and parse their output.",
        epilog=_epilog(
            "granite-format demo",
            "granite-format render -m granite3.3:8b request.json",
            "(granite-format COMMAND --help shows the options and an example of each command)",
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action=_VersionAction)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    def command(name: str, help_text: str, *more_examples: str) -> argparse.ArgumentParser:
        return sub.add_parser(
            name,
            help=help_text,
            description=help_text[0].upper() + help_text[1:] + ".",
            epilog=_epilog(EXAMPLES[name], *more_examples),
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )

    demo = command("demo", "render and parse a bundled example")
    demo.add_argument(
        "--model",
        "-m",
        help="model name (default: the first installed model whose plugin declares a demo)",
    )
    demo.set_defaults(handler=_cmd_demo)

    render = command(
        "render",
        "print the prompt for a request (JSON)",
        "granite-format render -m ibm-granite/granite-3.2-8b-instruct - < request.json",
    )
    render.add_argument("--model", "-m", required=True, help="model name")
    render.add_argument("file", nargs="?", help="request JSON file, or - for stdin (default)")
    render.add_argument("--date", type=_parse_date, help="pin today's date (YYYY-MM-DD)")
    render.add_argument(
        "--no-generation-prompt", action="store_true", help="omit the assistant header"
    )
    render.add_argument(
        "--special-tokens",
        choices=["error", "strip", "keep"],
        help="what to do with special tokens in user content (default: error)",
    )
    render.add_argument("--newline", action="store_true", help="end the output with a newline")
    render.set_defaults(handler=_cmd_render)

    parse = command(
        "parse",
        "parse raw model output into a message (JSON)",
        "granite-format parse -m granite3.3:8b --stream --openai < output.txt",
    )
    parse.add_argument("--model", "-m", required=True, help="model name")
    parse.add_argument("--request", help="the request JSON that produced the output")
    parse.add_argument("file", nargs="?", help="model output file, or - for stdin (default)")
    parse.add_argument("--openai", action="store_true", help="print the OpenAI message form")
    parse.add_argument(
        "--stream",
        action="store_true",
        help='parse as the input arrives; print JSON lines {"delta": ..., "message": ...}',
    )
    parse.set_defaults(handler=_cmd_parse)

    models = command("models", "list the models that installed plugins provide")
    models.add_argument("--json", action="store_true", help="print JSON")
    models.set_defaults(handler=_cmd_models)

    resolve = command(
        "resolve",
        "show which model and plugin a name resolves to",
        "granite-format resolve --json granite-3.3-8b-instruct-Q4_K_M.gguf",
    )
    resolve.add_argument("name")
    resolve.add_argument(
        "--json", action="store_true", help="print JSON (an error object for an unknown name)"
    )
    resolve.set_defaults(handler=_cmd_resolve)

    plugins = command("plugins", "list installed plugins and their problems")
    plugins.add_argument("--json", action="store_true", help="print JSON")
    plugins.set_defaults(handler=_cmd_plugins)
    from ._serve_args import add_backend_key_argument, add_serve_arguments

    serve = command("serve", "an OpenAI-compatible chat endpoint in front of a completions server")
    add_serve_arguments(serve)  # the server itself is the optional 'serve' extra
    serve.set_defaults(handler=_cmd_serve)
    from ._batch.cli import add_batch_arguments

    batch = command("batch", "answer an OpenAI Batch API file through a completions server")
    add_batch_arguments(batch)
    batch.set_defaults(handler=_cmd_batch)
    export = command(
        "export",
        "write a model's output format for another runtime",
        "granite-format export response-template granite-4.1-8b --for vllm",
    )
    kinds = export.add_subparsers(dest="kind", metavar="KIND")
    kinds.required = True
    template = kinds.add_parser(
        "response-template",
        help="the output format as a transformers/vLLM response template (JSON)",
        description=(
            "Print a model's output format as the response_template of a tokenizer_config.json "
            "(transformers' parse_response and `transformers serve`; vLLM's hf parsers), or "
            "write it into a model folder's tokenizer_config.json. See docs/runtimes.md."
        ),
        epilog=_epilog(
            "granite-format export response-template granite-4.2-8b --into ./granite-4.2-8b",
            "granite-format export response-template granite-3.3-8b-instruct --for vllm",
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    template.add_argument("model", help="model name")
    template.add_argument(
        "--for",
        dest="runtime",
        choices=["transformers", "vllm"],
        default="transformers",
        help="the runtime's spelling (default: transformers)",
    )
    template.add_argument(
        "--into",
        metavar="DIR",
        help="write it into DIR/tokenizer_config.json, keeping the file's other keys",
    )
    template.set_defaults(handler=_cmd_export_response_template)

    doctor = command(
        "doctor",
        "say which Granite release a runtime's chat template is and how it renders",
        "granite-format doctor ./granite-4.2-8b --json",
        "granite-format doctor Modelfile",
        "granite-format doctor --backend http://127.0.0.1:8001 --model granite-4.2-8b",
        "granite-format doctor --backend http://127.0.0.1:8000 "
        "--model granite-4.2-8b=ibm-granite/granite-4.2-8b",
        "granite-format doctor --backend http://127.0.0.1:11434 --model granite3.3:8b",
    )
    doctor.add_argument(
        "path",
        nargs="?",
        help="a GGUF file, a Hugging Face model folder, a chat_template.jinja, "
        "a tokenizer_config.json or an Ollama Modelfile",
    )
    doctor.add_argument(
        "--backend",
        metavar="URL",
        help="instead of PATH: a running llama.cpp, vLLM or Ollama server; it renders "
        "the probe set (llama.cpp's /apply-template, vLLM's /tokenize) or says what it "
        "declares (Ollama's /api/show); needs --model",
    )
    doctor.add_argument(
        "--backend-type",
        choices=("auto", "llamacpp", "vllm", "ollama"),
        default="auto",
        help="the runtime at --backend (default: auto, asked from the server)",
    )
    add_backend_key_argument(doctor)
    doctor.add_argument(
        "--templates",
        metavar="DIR",
        help="reference templates (*.jinja) to compare the text with "
        "(default: $GRANITE_FORMATTERS_SHARED/chat-templates when present)",
    )
    doctor.add_argument(
        "--model",
        "-m",
        help="compare the prompts with this model's (default: the nearest); with "
        "--backend, NAME or OURS=SERVED when the server's name for it is not ours",
    )
    doctor.add_argument("--json", action="store_true", help="print JSON")
    doctor.set_defaults(handler=_cmd_doctor)

    return parser


def _cmd_doctor(args: argparse.Namespace, out: TextIO, stdin: TextIO) -> int:
    from ._doctor import diagnose, diagnose_live
    from ._serve_args import backend_key

    if (args.path is None) == (args.backend is None):
        raise _UserError("doctor needs a PATH or --backend URL (one of them)")
    if args.backend is not None:
        if args.model is None:
            raise _UserError("doctor --backend needs --model NAME (the model it serves)")
        try:
            key = backend_key(args.backend_api_key, os.environ)
        except ValueError as exc:
            raise _UserError(f"doctor: {exc}") from None
        model, _, served = args.model.partition("=")
        report = diagnose_live(
            args.backend, model, backend_type=args.backend_type, served=served or None, api_key=key
        )
    else:
        if args.backend_api_key is not None:  # (the variable is machine-wide: not an error)
            raise _UserError("doctor --backend-api-key goes with --backend URL, not a PATH")
        report = diagnose(args.path, templates=args.templates, model=args.model)
    if args.json:
        _dump(report.to_json(), out)
        return 0
    colour = out.isatty() and not os.environ.get("NO_COLOR")
    out.write(report.to_text(colour=colour))
    return 0


def _cmd_export_response_template(args: argparse.Namespace, out: TextIO, stdin: TextIO) -> int:
    from ._export import response_template, write_response_template

    template = response_template(args.model, spelling=args.runtime)
    if args.into is None:
        _dump(template, out)
        return 0
    path = write_response_template(template, args.into)
    out.write(f"wrote the response_template of {args.model} ({args.runtime}) into {path}\n")
    return 0


def _cmd_batch(args: argparse.Namespace, out: TextIO, stdin: TextIO) -> int:
    try:
        from ._batch.cli import run
    except ImportError as exc:  # pragma: no cover - the serve extra is missing
        raise _UserError(str(exc)) from None
    from ._batch.cli import OptionError

    try:
        return run(args, out)
    except OptionError as exc:
        raise _UserError(f"batch: {exc}") from None
    except OSError as exc:
        if exc.filename is None:
            raise
        raise _UserError(f"batch: {exc.filename}: {exc.strerror or exc}") from None


def _cmd_serve(args: argparse.Namespace, out: TextIO, stdin: TextIO) -> int:
    try:
        from ._serve.cli import run
    except ImportError as exc:
        raise _UserError(str(exc)) from None
    return run(args)


def _why(exc: BaseException) -> str:
    """Why a write failed, in a few words."""
    if isinstance(exc, UnicodeEncodeError):
        bad = exc.object[exc.start : exc.end]
        code = ", ".join(f"U+{ord(ch):04X}" for ch in bad[:3])
        if any(0xD800 <= ord(ch) <= 0xDFFF for ch in bad):
            return (
                f"the text contains a lone surrogate ({code}), which no encoding can write; "
                "remove it from the input"
            )
        return (
            f"stdout's encoding ({exc.encoding}) cannot represent {code}; "
            "set PYTHONIOENCODING=utf-8"
        )
    if isinstance(exc, BrokenPipeError):
        return "the reading end of the pipe was closed"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or type(exc).__name__


#: The exit status when the reader closed the pipe early: 128 + SIGPIPE, what a shell
#: reports for a command the signal ended (``yes | head``), without a message.
_CLOSED_PIPE_STATUS = 141


def _silence_stdout() -> None:
    """Point the real stdout at /dev/null, so the interpreter's final flush of what could
    not be written does not fail again with a traceback."""
    stream = sys.__stdout__
    if stream is None:
        return
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # pragma: no cover - no file descriptor to replace
        pass


def _one_line(text: str) -> str:
    return " ".join(line.strip() for line in text.splitlines() if line.strip())


def main(
    argv: Sequence[str] | None = None,
    *,
    stdout: TextIO | None = None,
    stdin: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    """Run the command line; returns the exit status.

    1: a user error (bad request, unknown model, unreadable input, output that cannot
    be written); 2: a usage error (from argparse); 130: interrupted; 141: the reader
    closed the pipe (no message). Each is one line on
    stderr, never a traceback (set ``GRANITE_FORMATTERS_DEBUG=1`` to see the traceback
    of an unexpected error).
    """
    from ._errors import FormatterError, UnknownModelError

    real_stdout = stdout is None
    out = stdout if stdout is not None else sys.stdout
    err = stderr if stderr is not None else sys.stderr
    inp = stdin if stdin is not None else sys.stdin
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra:  # (batch's files may come after its options: batch parse --request-file F RAW)
        if args.command != "batch" or any(item.startswith("-") for item in extra):
            parser.error("unrecognized arguments: " + " ".join(extra))
        args.paths += extra

    def report(text: str) -> None:
        if err is None:
            return
        line = f"granite-format: error: {_one_line(text)}\n"
        try:
            err.write(line)
            err.flush()
        except UnicodeEncodeError:
            err.write(line.encode("ascii", "backslashreplace").decode("ascii"))
        except OSError:
            pass

    if out is None:
        report("cannot write the output: stdout is closed")
        return 1
    try:
        code = int(args.handler(args, out, inp))
        out.flush()
        return code
    except UnknownModelError as exc:
        report(_unknown_model(exc))
        return 1
    except (_UserError, FormatterError) as exc:
        report(str(exc) or type(exc).__name__)
        return 1
    except BrokenPipeError:
        # The reader has what it wanted (``granite-format demo | head``): quietly, with
        # the status of a command ended by SIGPIPE, as the shell reports it for cat or seq.
        if real_stdout:
            _silence_stdout()
        return _CLOSED_PIPE_STATUS
    except (OSError, UnicodeEncodeError) as exc:
        # A failed write: full disk, closed descriptor, encoding.
        if real_stdout:
            _silence_stdout()
        report(f"cannot write the output: {_why(exc)}")
        return 1
    except KeyboardInterrupt:
        report("interrupted")
        return 130
    except Exception as exc:
        if os.environ.get(DEBUG_VARIABLE):
            raise
        report(
            f"unexpected {type(exc).__name__}: {_one_line(str(exc))[:200]} "
            f"(a bug: please report it; {DEBUG_VARIABLE}=1 shows the traceback)"
        )
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
