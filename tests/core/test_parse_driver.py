"""The parser (``_engine/parse.py``) is a driver: it asks the syntaxes through their typed
protocols (``syntax/protocols.py``) and leaves their wording to them.

Read from the source with :mod:`ast`: no ``getattr``/``hasattr`` probing (a syntax member
the driver reads is declared in a protocol, so mypy checks every syntax for it); no
string in the module (f-string pieces included) that names a syntax's markup or words a
syntax's note; and the module stays within its line budget (a ratchet: it may shrink,
not grow, as the stages move into the syntax modules).
"""

from __future__ import annotations

import ast
from pathlib import Path

import granite_formatters

DRIVER = Path(granite_formatters.__file__).parent / "_engine" / "parse.py"
#: The module's size when this test was written; lower it as the driver shrinks.
LINE_BUDGET = 447
#: What only a syntax knows: its markup and the words of its notes.
SYNTAX_WORDS = (
    "JSON",
    "</",
    "<function",
    "<parameter",
    "<think",
    "<tool_call",
    "<|tool_call|>",
    "after its",
    "is cut off",
    "no reasoning was opened",
    "no end marker",
    "kept as content",
    "is not a tool call",
    "holds no call",
    "closes no tool call",
)


def _tree() -> ast.Module:
    return ast.parse(DRIVER.read_text(encoding="utf-8"))


def _strings(tree: ast.Module) -> list[str]:
    """Every string constant of the module except docstrings (f-string pieces are
    constants too)."""
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
    ]


def test_the_driver_probes_no_syntax_by_name() -> None:
    probes = [
        (node.lineno, node.func.id)
        for node in ast.walk(_tree())
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in ("getattr", "hasattr")
    ]
    assert probes == []


def test_the_driver_words_no_syntax_note_and_names_no_markup() -> None:
    found = [(word, text) for text in _strings(_tree()) for word in SYNTAX_WORDS if word in text]
    assert found == []


def test_the_driver_stays_within_its_line_budget() -> None:
    lines = len(DRIVER.read_text(encoding="utf-8").splitlines())
    assert lines <= LINE_BUDGET, f"{DRIVER.name} has {lines} lines (budget {LINE_BUDGET})"


def test_the_words_test_finds_a_note_in_an_f_string() -> None:
    # (The check itself: a syntax's wording inside an f-string is found.)
    tree = ast.parse('x = f"the block {at} holds JSON {error}"')
    assert any("JSON" in text for text in _strings(tree))
