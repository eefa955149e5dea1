"""Test support: where the golden files are, and a loader for the shared layout.

One request file per golden case, one expected prompt per release::

    tests/golden/<family>/requests/<case>.json
    tests/golden/<family>/<release>/<case>.prompt.txt

A release has a prompt for exactly the cases that apply to it. The files are written
by ``tests/make_goldens.py``, rendering the official templates; see its docstring.

The cases are read with the testing kit's
``granite_formatters.testing.load_golden_cases(requests, prompts=release_folder)``.
"""

from __future__ import annotations

from pathlib import Path

from granite_formatters.testing import GoldenCase, load_golden_cases

ROOT = Path(__file__).resolve().parents[1] / "golden"


def requests_dir(family: str) -> Path:
    """The folder of the request files of ``family`` (``"granite3"``, ``"granite4"``)."""
    return ROOT / family / "requests"


def prompts_dir(family: str, version: str) -> Path:
    """The folder of the expected prompts of release ``version`` of ``family``."""
    return ROOT / family / version


def release_cases(family: str, version: str) -> list[GoldenCase]:
    """The golden cases of one release: the requests that have a prompt for it."""
    return load_golden_cases(requests_dir(family), prompts=prompts_dir(family, version))


def case_names(family: str, version: str) -> list[str]:
    """The names of the golden cases of one release, without reading them."""
    return sorted(
        path.name.removesuffix(".prompt.txt")
        for path in prompts_dir(family, version).glob("*.prompt.txt")
    )
