"""``granite-format serve`` (also ``python -m granite_formatters serve``)."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence

from .._api import get_formatter
from ..errors import UnknownModelError
from .options import build_parser, config_from_args

__all__ = ["main", "run"]


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the serve options and run the server until interrupted; the exit status."""
    return run(build_parser().parse_args(argv))


def run(args: argparse.Namespace) -> int:
    """Run the server for parsed options (``granite-format serve`` calls this)."""
    import uvicorn

    from .app import create_app

    try:
        config = config_from_args(args, os.environ.get("GRANITE_SERVE_API_KEY"))
    except ValueError as exc:
        sys.stderr.write(f"granite-format serve: error: {exc}\n")
        return 2
    for name in config.models:
        try:
            get_formatter(name)
        except UnknownModelError as exc:
            text = " ".join(line.strip() for line in str(exc).splitlines() if line.strip())
            sys.stderr.write(f"granite-format serve: error: --model {name}: {text}\n")
            return 2
    logging.basicConfig(
        level=args.log_level.upper(),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    if config.host not in ("127.0.0.1", "localhost", "::1") and config.api_key is None:
        logging.getLogger("granite_formatters.serve").warning(
            "listening on %s without --api-key: anyone who can reach it can use the backend",
            config.host,
        )
    uvicorn.run(
        create_app(config),
        host=config.host,
        port=config.port,
        log_level=args.log_level,
        access_log=False,
        log_config=None,
    )
    return 0
