"""The server's configuration and the ``granite-format serve`` command-line options."""

from __future__ import annotations

import argparse
from collections.abc import Mapping

import attrs

from .._serve_args import (
    BACKEND_TYPES,
    DEFAULT_MAX_BODY_BYTES,
    DEFAULT_MAX_OUTPUT_BYTES,
    DEFAULT_MAX_PROMPT_CHARS,
    add_serve_arguments,
)

__all__ = ["BACKEND_TYPES", "ServeConfig", "build_parser", "config_from_args", "parse_model_map"]


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
    #: The token limit sent when a request sets none and the backend's context is unknown
    #: (``None``: send none, and the backend's default applies).
    default_max_tokens: int | None = None
    #: The most answer text read from the backend per request; past it the answer ends
    #: with ``finish_reason: "length"``.
    max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES
    #: Seconds open streams may go on after a shutdown signal; they then end with an
    #: error event and ``[DONE]``.
    shutdown_grace: float = 10.0


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
        default_max_tokens=getattr(args, "default_max_tokens", None),
        max_output_bytes=getattr(args, "max_output_bytes", DEFAULT_MAX_OUTPUT_BYTES),
    )
