"""The ``granite-format`` command.

``granite-format demo`` renders and parses a bundled example; ``render`` and ``parse``
do the same for your own files; ``models``, ``resolve`` and ``plugins`` show what is
installed. A user error exits with status 1 and a one-line message; a usage error
exits with status 2.
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
from collections.abc import Sequence
from importlib import resources
from typing import Any, NoReturn, TextIO

__all__ = ["main"]

DEMO_MODEL = "granite-3.2-8b-instruct"


class _UserError(Exception):
    """A problem to report in one line, without a traceback."""


def _read_text(path: str | None, stdin: TextIO) -> str:
    if path is None or path == "-":
        return stdin.read()
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except OSError as exc:
        raise _UserError(f"cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise _UserError(f"cannot read {path}: not UTF-8 text ({exc.reason})") from None


def _read_json(path: str | None, stdin: TextIO, what: str) -> Any:
    text = _read_text(path, stdin)
    try:
        return json.loads(text)
    except ValueError as exc:
        raise _UserError(f"{what} {path or '(stdin)'} is not valid JSON: {exc}") from None


def _parse_date(value: str) -> datetime.date:
    try:
        return datetime.date.fromisoformat(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a date in YYYY-MM-DD form: {value!r}") from None


def _dump(data: Any, out: TextIO) -> None:
    out.write(json.dumps(data, ensure_ascii=False, indent=2))
    out.write("\n")


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

    request = _read_json(args.request, stdin, "request") if args.request else None
    formatter = get_formatter(args.model)
    if args.stream:
        return _stream(formatter, request, args.file, out, stdin)
    text = _read_text(args.file, stdin)
    message = formatter.parse(text, request)
    if args.openai:
        _dump(message.to_openai(), out)
    else:
        _dump(message.model_dump(mode="json"), out)
    return 0


def _stream(formatter: Any, request: Any, path: str | None, out: TextIO, stdin: TextIO) -> int:
    parser = formatter.stream_parser(request)
    handle: TextIO
    if path is None or path == "-":
        handle = stdin
    else:
        try:
            handle = open(path, encoding="utf-8")  # noqa: SIM115 - closed below
        except OSError as exc:
            raise _UserError(f"cannot read {path}: {exc.strerror or exc}") from None

    def emit(deltas: Any) -> None:
        for delta in deltas:
            out.write(json.dumps(delta.to_openai(), ensure_ascii=False))
            out.write("\n")
            out.flush()

    try:
        while True:
            chunk = handle.read(1) if handle.isatty() else handle.readline()
            if not chunk:
                break
            emit(parser.feed(chunk))
    finally:
        if handle is not stdin:
            handle.close()
    emit(parser.close())
    message = parser.message
    assert message is not None
    out.write(json.dumps({"message": message.model_dump(mode="json")}, ensure_ascii=False))
    out.write("\n")
    return 0


def _cmd_models(args: argparse.Namespace, out: TextIO, stdin: TextIO) -> int:
    from . import list_models

    models = list_models()
    if args.json:
        _dump([_model_dict(m) for m in models], out)
        return 0
    if not models:
        out.write(
            "No formatter plugins are installed (try: pip install granite-formatters-granite33).\n"
        )
        return 0
    rows = [["MODEL", "PLUGIN", "ALIASES"]]
    rows += [[m.model_id, m.plugin.label, ", ".join(m.aliases)] for m in models]
    _table(rows, out)
    return 0


def _cmd_resolve(args: argparse.Namespace, out: TextIO, stdin: TextIO) -> int:
    from . import resolve_model

    resolution = resolve_model(args.name)
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


def _load_demo() -> dict[str, Any]:
    text = resources.files("granite_formatters").joinpath("examples/demo.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def _cmd_demo(args: argparse.Namespace, out: TextIO, stdin: TextIO) -> int:
    from . import get_formatter, resolve_model

    demo = _load_demo()
    model_id = resolve_model(args.model).model.model_id
    outputs: dict[str, str] = demo["outputs"]
    key = next((k for k in outputs if model_id.startswith(k)), None)
    if key is None:
        raise _UserError(
            f"the demo has sample output for {', '.join(outputs)} models only; "
            f"pick one of those with --model"
        )
    formatter = get_formatter(model_id)
    request = demo["request"]
    today = datetime.date.fromisoformat(demo["date"])
    out.write(f"== Request (bundled example, model {model_id}) ==\n")
    _dump(request, out)
    out.write("\n== Prompt sent to the completions endpoint ==\n")
    out.write(formatter.format(request, today=today))
    out.write("\n\n== Raw model output (sample) ==\n")
    out.write(outputs[key])
    out.write("\n\n== Parsed assistant message ==\n")
    _dump(formatter.parse(outputs[key], request).model_dump(mode="json"), out)
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
        sys.stdout.write(_version_text() + "\n")
        parser.exit(0)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="granite-format",
        description="Render exact prompts for IBM Granite chat models and parse their output.",
    )
    parser.add_argument("--version", action=_VersionAction)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    demo = sub.add_parser("demo", help="render and parse a bundled example")
    demo.add_argument("--model", default=DEMO_MODEL, help=f"model name (default {DEMO_MODEL})")
    demo.set_defaults(handler=_cmd_demo)

    render = sub.add_parser("render", help="print the prompt for a request (JSON)")
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

    parse = sub.add_parser("parse", help="parse raw model output into a message (JSON)")
    parse.add_argument("--model", "-m", required=True, help="model name")
    parse.add_argument("--request", help="the request JSON that produced the output")
    parse.add_argument("file", nargs="?", help="model output file, or - for stdin (default)")
    parse.add_argument("--openai", action="store_true", help="print the OpenAI message form")
    parse.add_argument(
        "--stream", action="store_true", help="parse incrementally, print deltas as JSON lines"
    )
    parse.set_defaults(handler=_cmd_parse)

    models = sub.add_parser("models", help="list the models that installed plugins provide")
    models.add_argument("--json", action="store_true", help="print JSON")
    models.set_defaults(handler=_cmd_models)

    resolve = sub.add_parser("resolve", help="show which model and plugin a name resolves to")
    resolve.add_argument("name")
    resolve.add_argument("--json", action="store_true", help="print JSON")
    resolve.set_defaults(handler=_cmd_resolve)

    plugins = sub.add_parser("plugins", help="list installed plugins and their problems")
    plugins.add_argument("--json", action="store_true", help="print JSON")
    plugins.set_defaults(handler=_cmd_plugins)
    # Options are parsed by granite_formatters.serve.cli (an optional extra); see main().
    sub.add_parser("serve", help="OpenAI-compatible chat server before a completions server")
    return parser


def _cmd_serve(argv: list[str], err: TextIO) -> int:
    try:
        from .serve.cli import main as serve_main
    except ImportError as exc:
        err.write(f"granite-format: error: {exc}\n")
        return 1
    return serve_main(argv)


def main(
    argv: Sequence[str] | None = None,
    *,
    stdout: TextIO | None = None,
    stdin: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    """Run the command line; returns the exit status."""
    from .errors import FormatterError

    out = stdout if stdout is not None else sys.stdout
    err = stderr if stderr is not None else sys.stderr
    inp = stdin if stdin is not None else sys.stdin
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["serve"]:
        return _cmd_serve(argv[1:], err)
    args = build_parser().parse_args(argv)
    try:
        return int(args.handler(args, out, inp))
    except (_UserError, FormatterError) as exc:
        text = " ".join(line.strip() for line in str(exc).splitlines() if line.strip())
        err.write(f"granite-format: error: {text or type(exc).__name__}\n")
        return 1
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
