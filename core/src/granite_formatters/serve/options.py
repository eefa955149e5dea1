"""The server's configuration and the ``granite-format serve`` command-line options."""

from __future__ import annotations

import argparse
from collections.abc import Mapping

import attrs

__all__ = ["BACKEND_TYPES", "ServeConfig", "build_parser", "config_from_args", "parse_model_map"]

BACKEND_TYPES = ("openai", "llamacpp", "ollama")
DEFAULT_MAX_BODY_BYTES = 8 * 1024 * 1024
DEFAULT_MAX_PROMPT_CHARS = 2_000_000


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
    api_key: str | None = None
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    max_prompt_chars: int = DEFAULT_MAX_PROMPT_CHARS
    connect_timeout: float = 10.0
    read_timeout: float = 300.0
    log_prompts: bool = False


def build_parser(prog: str = "granite-format serve") -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog,
        description=(
            "Serve an OpenAI-compatible /v1/chat/completions endpoint in front of a raw "
            "completions server: exact Granite prompts in, parsed messages out."
        ),
    )
    parser.add_argument(
        "--backend", required=True, metavar="URL",
        help="the completions server (openai: http://HOST:PORT/v1; llamacpp, ollama: http://HOST:PORT)",
    )  # fmt: skip
    parser.add_argument(
        "--backend-type", choices=BACKEND_TYPES, default="openai",
        help="openai = /v1/completions (vLLM, SGLang, TGI, llama.cpp); llamacpp = native "
        "/completion; ollama = /api/generate raw (default: openai)",
    )  # fmt: skip
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port to bind (default 8000)")
    parser.add_argument(
        "--model", action="append", metavar="NAME[=BACKEND_NAME]",
        help="serve only this model name (repeatable); BACKEND_NAME is what the backend is "
        "sent (default: NAME)",
    )  # fmt: skip
    parser.add_argument(
        "--api-key", help="require 'Authorization: Bearer KEY' (or set GRANITE_SERVE_API_KEY)"
    )
    parser.add_argument(
        "--max-body-bytes", type=int, default=DEFAULT_MAX_BODY_BYTES,
        help=f"largest request body accepted (default {DEFAULT_MAX_BODY_BYTES})",
    )  # fmt: skip
    parser.add_argument(
        "--max-prompt-chars", type=int, default=DEFAULT_MAX_PROMPT_CHARS,
        help=f"largest rendered prompt accepted (default {DEFAULT_MAX_PROMPT_CHARS})",
    )  # fmt: skip
    parser.add_argument(
        "--timeout", type=float, default=300.0,
        help="seconds to wait for the backend's next bytes (default 300)",
    )  # fmt: skip
    parser.add_argument(
        "--log-level", default="info", choices=["debug", "info", "warning", "error"],
        help="logging level (default info)",
    )  # fmt: skip
    parser.add_argument(
        "--log-prompts", action="store_true", help="log each rendered prompt at debug level"
    )
    return parser


def config_from_args(args: argparse.Namespace, api_key_env: str | None = None) -> ServeConfig:
    return ServeConfig(
        backend=args.backend,
        backend_type=args.backend_type,
        host=args.host,
        port=args.port,
        models=parse_model_map(args.model),
        api_key=args.api_key or api_key_env or None,
        max_body_bytes=args.max_body_bytes,
        max_prompt_chars=args.max_prompt_chars,
        read_timeout=args.timeout,
        log_prompts=args.log_prompts,
    )
