"""`granite-format demo -m`: any bundled model, and the request shown names it."""

from __future__ import annotations

import importlib.util
import io
import json

import pytest

from granite_formatters import _cli as cli


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(list(argv), stdout=out, stderr=err, stdin=io.StringIO(""))
    return code, out.getvalue(), err.getvalue()


BUNDLED = bool(
    importlib.util.find_spec("granite_formatters_granite32")
    and importlib.util.find_spec("granite_formatters_granite33")
)


@pytest.mark.skipif(not BUNDLED, reason="needs both bundled plugins")
@pytest.mark.parametrize(
    ("argv", "model", "model_id"),
    [
        (("demo",), "granite-3.2-8b-instruct", "granite-3.2-8b-instruct"),
        (("demo", "-m", "granite3.3:8b"), "granite3.3:8b", "granite-3.3-8b-instruct"),
        (("demo", "--model", "ollama/granite3.2:2b"), "ollama/granite3.2:2b", "granite-3.2-2b"),
    ],
)
def test_demo_shows_the_model_it_was_given(
    argv: tuple[str, ...], model: str, model_id: str
) -> None:
    code, out, err = run(*argv)
    assert (code, err) == (0, "")
    assert out.startswith(f"== Request (bundled example, model {model_id}")
    shown = out.split("\n", 1)[1].split("\n\n== Prompt", 1)[0]
    assert json.loads(shown)["model"] == model
