"""A plain-dict prompt never imports pydantic; a typed request or an error still works.

Each check runs in a fresh interpreter, so what an earlier test imported cannot hide an
eager import. The names are the bundled releases' models (``tests/support/releases.py``).
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from support.releases import RELEASES

#: One model per bundled release; a release whose plugin is absent is skipped, saying so.
MODELS = [
    pytest.param(
        release.model,
        marks=pytest.mark.skipif(
            not release.installed, reason=f"{release.distribution} is not installed"
        ),
    )
    for release in RELEASES
]

PLAIN = """
import json, sys
import granite_formatters
formatter = granite_formatters.get_formatter(sys.argv[1])
request = {
    "messages": [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "Hello."},
        {"role": "user", "content": "Weather?"},
    ],
    "tools": [{"type": "function", "function": {"name": "f", "parameters": {}}}],
    "model": sys.argv[1],
    "temperature": 0.0,
}
prompt = formatter.format(request)
loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("pydantic", "pydantic_core"))
print(json.dumps({"prompt": prompt, "loaded": loaded}))
"""

TYPED = """
import json, sys
import granite_formatters
from granite_formatters._errors import InvalidRequestError
formatter = granite_formatters.get_formatter(sys.argv[1])
request = json.loads(sys.argv[2])
try:
    formatter.format({**request, "bogus": 1})
except InvalidRequestError as exc:
    error = [str(exc), exc.field]
from granite_formatters._types import ChatCompletion
typed = formatter.format(ChatCompletion.model_validate(request))
print(json.dumps({"error": error, "typed": typed, "dict": formatter.format(request)}))
"""

REQUEST = {"messages": [{"role": "user", "content": "Hi"}]}


def _run(code: str, *args: str) -> dict[str, Any]:
    proc = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, check=True
    )
    result: dict[str, Any] = json.loads(proc.stdout)
    return result


@pytest.mark.parametrize("model", MODELS)
def test_a_plain_dict_prompt_does_not_import_pydantic(model: str) -> None:
    result = _run(PLAIN, model)
    assert result["loaded"] == []
    assert "Be brief." in str(result["prompt"])


@pytest.mark.parametrize("model", MODELS)
def test_a_typed_request_and_an_error_still_work_in_a_fresh_process(model: str) -> None:
    result = _run(TYPED, model, json.dumps(REQUEST))
    assert result["typed"] == result["dict"]
    message, field = result["error"]
    assert field == "bogus" and "unknown request field" in message
