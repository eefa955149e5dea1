"""``granite-format serve`` (also ``python -m granite_formatters serve``)."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import Sequence
from typing import Any

import attrs

from .._api import get_formatter, list_models
from .._errors import UnknownModelError
from .accesslog import configure_logging
from .guard import is_loopback
from .options import ServeConfig, build_parser, config_from_args, startup_text

_WORKER_ENV = "GRANITE_SERVE_WORKER_CONFIG"

__all__ = ["main", "run", "worker_app"]


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the serve options and run the server until interrupted; the exit status."""
    return run(build_parser().parse_args(argv))


def run(args: argparse.Namespace) -> int:
    """Run the server for parsed options (``granite-format serve`` calls this)."""
    import uvicorn

    from .app import create_app

    try:
        config = config_from_args(args, os.environ.get("GRANITE_SERVE_API_KEY"), os.environ)
    except ValueError as exc:
        for line in str(exc).splitlines():
            sys.stderr.write(f"granite-format serve: error: {line}\n")
        return 2
    for name in config.models:
        try:
            get_formatter(name)
        except UnknownModelError as exc:
            text = " ".join(line.strip() for line in str(exc).splitlines() if line.strip())
            sys.stderr.write(f"granite-format serve: error: --model {name}: {text}\n")
            return 2
    configure_logging(args.log_level)
    logger = logging.getLogger("granite_formatters.serve")
    served = () if config.models else [model.model_id for model in list_models()]
    logger.info("%s", startup_text(config, served))
    if not is_loopback(config.host) and config.api_key is None:
        logger.warning(
            "listening on %s without --api-key: anyone who can reach it can use the backend",
            config.host,
        )
    options: dict[str, Any] = {
        "host": config.host,
        "port": config.port,
        "log_level": args.log_level,
        "access_log": False,
        "log_config": None,
    }
    if config.workers > 1:
        # Each worker is a new process: it rebuilds the app from this environment variable.
        os.environ[_WORKER_ENV] = json.dumps(
            {"config": attrs.asdict(config), "log_level": args.log_level}
        )
        uvicorn.run(f"{__name__}:worker_app", factory=True, workers=config.workers, **options)
    else:
        uvicorn.run(create_app(config), **options)
    return 0


def worker_app() -> Any:
    """The application of one ``--workers`` process, from the parent's options."""
    from .app import create_app

    data = json.loads(os.environ[_WORKER_ENV])
    configure_logging(data["log_level"])
    return create_app(ServeConfig(**data["config"]))
