"""A first prompt in a fresh process imports what formatting needs, and nothing more.

Each check runs a prompt in a fresh interpreter and reads ``sys.modules`` (no timing):
the output side (parser, pydantic models), the plugin machinery (pluggy, entry points),
jinja2, and the syntaxes the release does not declare stay unimported, so that a later
eager import fails here rather than only in the first-prompt benchmark rows.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest

from support.releases import RELEASES, Release

FIRST_PROMPT = """
import json, sys
from granite_formatters import get_formatter
get_formatter(sys.argv[1]).format(json.loads(sys.argv[2]))
print(json.dumps(sorted(sys.modules)))
"""

CHAT: dict[str, Any] = {
    "messages": [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "What is 2 + 2?"},
    ]
}

RAG: dict[str, Any] = {
    "messages": [
        {"role": "user", "content": "Who wrote it?"},
        {"role": "assistant", "content": "Which book?"},
        {"role": "user", "content": "The first one."},
    ],
    "documents": [
        {"doc_id": "1", "title": "One", "text": "Ann wrote the first book."},
        {"doc_id": "2", "title": "Two", "text": "Bob wrote the second."},
    ],
    "chat_template_kwargs": {"controls": {"citations": True, "hallucinations": True}},
}

#: Never on the format path: the output side, the request models, the plugin machinery
#: (a bundled model resolves through the catalogue) and the Jinja template engine.
NEVER = (
    "jinja2",
    "pydantic",
    "pydantic_core",
    "pluggy",
    "importlib.metadata",
    "granite_formatters._types",
    "granite_formatters.granite3._types",
    "granite_formatters._hookspecs",
    "granite_formatters._engine.parse",
    "granite_formatters._streaming",
    # Only the parser or plugin discovery needs these: typing_extensions (a type
    # checker's TypeVar default), the records of plugin discovery, the marked-reasoning
    # stage, and the citation modules a citation syntax's parse reads.
    "typing_extensions",
    "granite_formatters._plugin_records",
    "granite_formatters.syntax._marked_stage",
    "granite_formatters.syntax._markers",
    *(
        f"granite_formatters.syntax._citations.{name}"
        for name in (
            "citation_input",
            "documents",
            "hallucinations",
            "lines",
            "reader",
            "sections",
            "sentences",
            "spans",
            "stages",
            "tag_remover",
        )
    ),
)

#: The modules of the bundled tool-call syntaxes; a release's prompt loads its own only.
TOOL_CALL_SYNTAXES = frozenset(
    f"granite_formatters.syntax._{name}" for name in ("json_list", "json_blocks", "xml_functions")
)


def _cases() -> list[Any]:
    cases = []
    for release in RELEASES:
        skip = pytest.mark.skipif(
            not release.installed, reason=f"{release.distribution} is not installed"
        )
        requests = {"chat": CHAT, **({"rag": RAG} if release.has("controls") else {})}
        for name, request in requests.items():
            cases.append(pytest.param(release, request, id=f"{release.version}-{name}", marks=skip))
    return cases


def _first_prompt_modules(model: str, request: dict[str, Any]) -> set[str]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("GRANITE_FORMATTERS_")}
    proc = subprocess.run(
        [sys.executable, "-c", FIRST_PROMPT, model, json.dumps(request)],
        capture_output=True,
        text=True,
        check=True,
        env=environ,
    )
    return set(json.loads(proc.stdout))


def _loaded(modules: set[str], name: str) -> bool:
    return name in modules or any(m.startswith(name + ".") for m in modules)


@pytest.mark.parametrize(("release", "request_"), _cases())
def test_a_first_prompt_imports_only_what_formatting_needs(
    release: Release, request_: dict[str, Any]
) -> None:
    from granite_formatters import get_formatter

    modules = _first_prompt_modules(release.model, request_)
    assert [name for name in NEVER if _loaded(modules, name)] == []
    declared = get_formatter(release.model).input_processor.release
    assert declared is not None
    own = type(declared.tool_calls).__module__
    assert own in TOOL_CALL_SYNTAXES
    assert modules & TOOL_CALL_SYNTAXES == {own}
    if declared.citations is None:
        assert not _loaded(modules, "granite_formatters.syntax._citations")
    if type(declared.layout).__module__ != "granite_formatters.syntax._system_blocks_layout":
        assert "granite_formatters.syntax._system_blocks_layout" not in modules
