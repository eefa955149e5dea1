"""The ``granite-format serve`` options, importable without the ``serve`` extra.

``granite-format --help`` lists them even where the extra is not installed; the command
itself then says how to install it.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping

__all__ = [
    "BACKEND_KEY_ENV",
    "BACKEND_TYPES",
    "DEFAULT_MAX_BODY_BYTES",
    "DEFAULT_MAX_OUTPUT_BYTES",
    "DEFAULT_MAX_PROMPT_CHARS",
    "add_backend_key_argument",
    "add_serve_arguments",
    "backend_key",
    "backend_key_problem",
]

BACKEND_TYPES = ("openai", "llamacpp", "ollama")
DEFAULT_MAX_BODY_BYTES = 8 * 1024 * 1024
DEFAULT_MAX_PROMPT_CHARS = 2_000_000
#: The default of ``--max-output-bytes``: far above any context's worth of text.
DEFAULT_MAX_OUTPUT_BYTES = 16 * 1024 * 1024
#: The environment variable read for ``--backend-api-key`` when the option is not given.
BACKEND_KEY_ENV = "GRANITE_BACKEND_API_KEY"


def add_serve_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the serve options to ``parser``."""
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
        "--allowed-hosts", action="append", metavar="HOST[,HOST...]",
        help="Host header names answered besides loopback names and the bound address "
        "('*': any); without --api-key other hosts are refused (DNS rebinding)",
    )  # fmt: skip
    parser.add_argument(
        "--cors-origin", action="append", metavar="ORIGIN",
        help="browser origin allowed to call the server (repeatable; '*': any); requests "
        "from other origins are refused",
    )  # fmt: skip
    parser.add_argument(
        "--workers", type=int, default=1,
        help="server processes sharing the port (default 1)",
    )  # fmt: skip
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
        help="seconds to wait for the backend's next bytes (default 300); a non-streaming "
        "client's answer comes from the backend in one body, which must come within it "
        "(see --stream-backend)",
    )  # fmt: skip
    parser.add_argument(
        "--stream-backend", action="store_true",
        help="ask the backend to stream also for clients that do not stream, so --timeout "
        "is the longest silence of the backend, never the time of a whole answer",
    )  # fmt: skip
    parser.add_argument(
        "--log-level", default="info", choices=["debug", "info", "warning", "error"],
        help="logging level (default info)",
    )  # fmt: skip
    parser.add_argument(
        "--log-prompts", action="store_true",
        help="log each rendered prompt and the backend's error texts (at info level)",
    )  # fmt: skip
    _add_backend_arguments(parser)


def add_backend_key_argument(parser: argparse.ArgumentParser) -> None:
    """``--backend-api-key``: the key sent to the backend (serve's and batch's option)."""
    parser.add_argument(
        "--backend-api-key", metavar="KEY",
        help="send 'Authorization: Bearer KEY' on every request to the backend (vLLM or "
        f"llama-server started with --api-key, a hosted endpoint); or set {BACKEND_KEY_ENV}",
    )  # fmt: skip


def backend_key_problem(key: str | None, name: str = "--backend-api-key") -> str | None:
    """What makes ``key`` unfit for an ``Authorization`` header (``None``: nothing), the
    option or variable ``name`` named and the key itself never shown."""
    if key is None:
        return None
    if not key:
        return f"{name}: empty"
    if not all(" " <= char <= "~" for char in key) or key != key.strip():
        return (
            f"{name}: the key holds a character an HTTP header cannot carry (it must be "
            "printable ASCII, without spaces around it)"
        )
    return None


def backend_key(option: str | None, environ: Mapping[str, str]) -> str | None:
    """The backend key: ``--backend-api-key`` when given, else :data:`BACKEND_KEY_ENV`'s
    value (``None``: neither); :class:`ValueError` for one a header cannot carry."""
    key, name = (option, "--backend-api-key") if option is not None else (
        environ.get(BACKEND_KEY_ENV), BACKEND_KEY_ENV
    )  # fmt: skip
    problem = backend_key_problem(key, name)
    if problem is not None:
        raise ValueError(problem)
    return key


def _add_backend_arguments(parser: argparse.ArgumentParser) -> None:
    """The options about what is asked of the backend."""
    add_backend_key_argument(parser)
    parser.add_argument(
        "--default-max-tokens", type=int, default=None, metavar="N",
        help="token limit for requests that set none when the backend does not list its "
        "context length (default: send none)",
    )  # fmt: skip
    parser.add_argument(
        "--max-output-bytes", type=int, default=DEFAULT_MAX_OUTPUT_BYTES, metavar="N",
        help="most answer text read from the backend per request; past it the answer ends "
        f"with finish_reason length (default {DEFAULT_MAX_OUTPUT_BYTES})",
    )  # fmt: skip
