"""The server's configuration and the ``granite-format serve`` command-line options."""

from __future__ import annotations

import argparse
import math
import urllib.parse
from collections.abc import Iterable, Mapping

import attrs

from .._serve_args import (
    BACKEND_TYPES,
    DEFAULT_MAX_BODY_BYTES,
    DEFAULT_MAX_OUTPUT_BYTES,
    DEFAULT_MAX_PROMPT_CHARS,
    add_serve_arguments,
    backend_key,
    backend_key_problem,
)

__all__ = [
    "BACKEND_TYPES",
    "ServeConfig",
    "build_parser",
    "config_from_args",
    "backend_problem",
    "config_problems",
    "parse_model_map",
    "startup_text",
]


def parse_model_map(values: list[str] | None) -> dict[str, str]:
    """``NAME`` or ``NAME=BACKEND_NAME`` options as ``{client name: backend model name}``."""
    models: dict[str, str] = {}
    for value in values or []:
        name, sep, backend_name = value.partition("=")
        name = name.strip()
        backend_name = backend_name.strip() if sep else name
        if not name or not backend_name:
            raise ValueError(f"--model {value!r}: expected NAME or NAME=BACKEND_NAME")
        models[name] = backend_name
    return models


def _as_dict(value: Mapping[str, str]) -> dict[str, str]:
    return dict(value)


def _as_names(values: Iterable[str]) -> tuple[str, ...]:
    """Repeated options, each possibly a comma-separated list, as one tuple."""
    if isinstance(values, str):
        values = [values]
    return tuple(part.strip() for value in values for part in value.split(",") if part.strip())


def backend_problem(url: str) -> str | None:
    try:
        parts = urllib.parse.urlsplit(url)
        parts.port  # noqa: B018 -- raises ValueError for a port that is not a number
    except ValueError as exc:
        return f"--backend {url[:200]!r}: not a URL ({exc})"
    if parts.scheme not in ("http", "https"):
        return f"--backend {url[:200]!r}: expected an http:// or https:// URL"
    if not parts.hostname:
        return f"--backend {url[:200]!r}: the URL names no host"
    return None


def _positive(value: float) -> bool:
    return not isinstance(value, bool) and math.isfinite(value) and value > 0


@attrs.frozen
class ServeConfig:
    """What the server needs to know; every field has a safe default but ``backend``.

    ``models`` maps the names clients may ask for to the model name sent to the backend;
    empty means every model the installed plugins serve, sent under the client's name.
    """

    backend: str
    backend_type: str = attrs.field(default="openai", validator=attrs.validators.in_(BACKEND_TYPES))
    host: str = "127.0.0.1"
    port: int = 8000
    models: Mapping[str, str] = attrs.field(factory=dict, converter=_as_dict)
    #: The key clients must send (``None``: none); never in the repr.
    api_key: str | None = attrs.field(default=None, repr=False)
    #: The key sent to the backend as ``Authorization: Bearer`` (``None``: none); never
    #: in the repr.
    backend_api_key: str | None = attrs.field(default=None, repr=False)
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    max_prompt_chars: int = DEFAULT_MAX_PROMPT_CHARS
    connect_timeout: float = 10.0
    read_timeout: float = 300.0
    #: Ask the backend to stream also for a client that does not (then ``read_timeout``
    #: is the longest silence of the backend for every request); otherwise such a
    #: client's answer is asked for whole, in one body, which the backend sends once the
    #: answer is complete, so ``read_timeout`` is the longest the whole answer may take.
    stream_backend: bool = False
    log_prompts: bool = False
    allowed_hosts: tuple[str, ...] = attrs.field(default=(), converter=_as_names)
    cors_origins: tuple[str, ...] = attrs.field(default=(), converter=_as_names)
    workers: int = 1
    #: The token limit sent when a request sets none and the backend's context is unknown
    #: (``None``: send none, and the backend's default applies).
    default_max_tokens: int | None = None
    #: The most answer text read from the backend per request; past it the answer ends
    #: with ``finish_reason: "length"``.
    max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES
    #: Seconds open streams may go on after a shutdown signal; they then end with an
    #: error event and ``[DONE]``.
    shutdown_grace: float = 10.0

    def __attrs_post_init__(self) -> None:
        problems = config_problems(self)
        if problems:
            raise ValueError("\n".join(problems))


def config_problems(config: ServeConfig) -> list[str]:
    """What is wrong with ``config``: one line per option, named as on the command line."""
    problems = []
    backend = backend_problem(config.backend)
    if backend is not None:
        problems.append(backend)
    key = backend_key_problem(config.backend_api_key)
    if key is not None:
        problems.append(key)
    if not config.host.strip():
        problems.append("--host: empty")
    if not 1 <= config.port <= 65535:
        problems.append(f"--port {config.port}: not a port number (1-65535)")
    limits = [
        ("--max-body-bytes", config.max_body_bytes),
        ("--max-prompt-chars", config.max_prompt_chars),
        ("--timeout", config.read_timeout),
        ("connect timeout", config.connect_timeout),
        ("--workers", config.workers),
        ("--max-output-bytes", config.max_output_bytes),
    ]
    if config.default_max_tokens is not None:
        limits.append(("--default-max-tokens", config.default_max_tokens))
    for name, value in limits:
        if not _positive(value):
            problems.append(f"{name} {value}: must be a positive number")
    if not (_positive(config.shutdown_grace) or config.shutdown_grace == 0):
        problems.append(f"shutdown grace {config.shutdown_grace}: must not be negative")
    return problems


def _public_url(url: str) -> str:
    """``url`` without any user name or password in it (for the log)."""
    parts = urllib.parse.urlsplit(url)
    if parts.username is None and parts.password is None:
        return url
    host = parts.netloc.rpartition("@")[2]
    return urllib.parse.urlunsplit(parts._replace(netloc=host))


def startup_text(config: ServeConfig, served: Iterable[str] = ()) -> str:
    """The line logged at start-up: where the server listens, the backend (its type and
    URL, without credentials) and the models; ``served`` are the names the installed
    plugins serve, listed when ``config`` names no models."""
    if config.models:
        names = [
            name if name == backend_name else f"{name} (as {backend_name})"
            for name, backend_name in config.models.items()
        ]
        models = ", ".join(names)
    else:
        every = list(served)
        shown = ", ".join(every[:8]) + (", ..." if len(every) > 8 else "")
        models = f"every model the installed plugins serve ({len(every)} names: {shown})"
    host = f"[{config.host}]" if ":" in config.host else config.host
    return (
        f"serving http://{host}:{config.port}/v1 in front of the {config.backend_type} "
        f"backend at {_public_url(config.backend)}; models: {models}"
    )


def build_parser(prog: str = "granite-format serve") -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog,
        description=(
            "Serve an OpenAI-compatible /v1/chat/completions endpoint in front of a raw "
            "completions server: exact Granite prompts in, parsed messages out."
        ),
    )
    add_serve_arguments(parser)
    return parser


def config_from_args(
    args: argparse.Namespace,
    api_key_env: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> ServeConfig:
    """The configuration of parsed options; ``environ`` holds the backend key's variable
    (``None``: none is read)."""
    return ServeConfig(
        backend=args.backend,
        backend_type=args.backend_type,
        host=args.host,
        port=args.port,
        models=parse_model_map(args.model),
        api_key=args.api_key or api_key_env or None,
        backend_api_key=backend_key(args.backend_api_key, environ or {}),
        max_body_bytes=args.max_body_bytes,
        max_prompt_chars=args.max_prompt_chars,
        read_timeout=args.timeout,
        stream_backend=getattr(args, "stream_backend", False),
        log_prompts=args.log_prompts,
        allowed_hosts=args.allowed_hosts or (),
        cors_origins=args.cors_origin or (),
        workers=args.workers,
        default_max_tokens=getattr(args, "default_max_tokens", None),
        max_output_bytes=getattr(args, "max_output_bytes", DEFAULT_MAX_OUTPUT_BYTES),
    )
