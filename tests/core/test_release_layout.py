"""A release names its layout as a value, and a release declared with the earlier
keywords (``system_prompt=``, ``tools_block=``, ...) keeps working: they are set on the
layout they belong to, or refused at declaration with the new spelling."""

from __future__ import annotations

import ast
import datetime
import warnings
from pathlib import Path
from typing import Any

import attrs
import pytest

import granite_formatters
from granite_formatters import Release
from granite_formatters._errors import DroppedInputWarning
from granite_formatters._special_tokens import SpecialTokens
from granite_formatters.release import Option
from granite_formatters.syntax import (
    CONTROLS,
    GRANITE_ROLES,
    JSON_LIST,
    DatedLayout,
    DatedSystemPrompt,
    DocumentTurnPerDocument,
    SystemBlock,
    SystemBlocksLayout,
    ToolsTurn,
)
from granite_formatters.syntax._system_blocks_layout import SYSTEM_BLOCKS

PROMPT = DatedSystemPrompt(
    preamble="Today is {date}.",
    tools=" Tools.",
    tools_and_documents=" Tools and documents.",
    documents=" Documents.",
    plain=" Plain.",
    citations=" Cite.",
    hallucinations=" Flag.",
)
BASE: dict[str, Any] = {
    "name": "Toy 3",
    "family": "Toy",
    "turns": GRANITE_ROLES,
    "special_tokens": SpecialTokens(("<|start_of_role|>", "<|end_of_role|>", "<|end_of_text|>")),
    "stop_strings": ("<|end_of_text|>",),
    "tool_calls": JSON_LIST,
    "options": (Option("controls", None, CONTROLS.check),),
}
DATED: dict[str, Any] = {
    "system_prompt": PROMPT,
    "tools_turn": ToolsTurn("tools"),
    "documents_turns": DocumentTurnPerDocument(),
    "controls": CONTROLS,
    "refused_roles": ("developer",),
    "record_tokens_lead": True,
    "template_writes_calls": False,
}
BLOCKS: dict[str, Any] = {
    "tools_block": SystemBlock(prefix="<tools>", suffix="</tools>"),
    "default_system_message": "Be kind.",
    "always_system": True,
    "empty_system_separated": False,
    "renders_other_roles": True,
}
REQUEST = {
    "messages": [{"role": "user", "content": "Hi"}],
    "documents": [{"doc_id": "7", "text": "Seven."}],
    "chat_template_kwargs": {"controls": {"citations": True}},
}
DAY = datetime.date(2025, 4, 6)


def legacy(**fields: Any) -> Release:
    """A release declared with the keywords of plugin API 1.4 (untyped: mypy refuses them)."""
    make: Any = Release
    release: Release = make(**BASE, **fields)
    return release


def test_the_earlier_dated_keywords_are_set_on_a_dated_layout() -> None:
    old = legacy(**DATED)
    new = Release(**BASE, layout=DatedLayout(**DATED))
    assert old == new and old.layout == DatedLayout(**DATED)
    prompt = new.input_processor().transform(REQUEST, today=DAY)
    assert prompt == old.input_processor().transform(REQUEST, today=DAY)
    assert prompt == (
        "<|start_of_role|>system<|end_of_role|>Today is April 06, 2025. Documents. Cite."
        "<|end_of_text|>\n"
        '<|start_of_role|>document {"document_id": "7"}<|end_of_role|>\nSeven.<|end_of_text|>\n'
        "<|start_of_role|>user<|end_of_role|>Hi<|end_of_text|>\n"
        '<|start_of_role|>assistant {"citations": true}<|end_of_role|>'
    )


def test_the_earlier_system_keywords_are_set_on_a_system_blocks_layout() -> None:
    old = legacy(**BLOCKS)
    assert old == Release(**BASE, layout=SystemBlocksLayout(**BLOCKS))
    request = {"messages": [{"role": "user", "content": "Hi"}]}
    assert old.input_processor().transform(request) == (
        "<|start_of_role|>system<|end_of_role|>Be kind.<|end_of_text|>\n"
        "<|start_of_role|>user<|end_of_role|>Hi<|end_of_text|>\n"
        "<|start_of_role|>assistant<|end_of_role|>"
    )


def test_a_release_without_a_layout_has_the_empty_system_blocks_one() -> None:
    assert Release(**BASE).layout is SYSTEM_BLOCKS


def test_evolving_with_an_earlier_keyword_sets_it_on_the_layout() -> None:
    kind = Release(**BASE, layout=SystemBlocksLayout(**BLOCKS))
    evolve: Any = attrs.evolve
    quiet = evolve(kind, default_system_message=None)
    assert quiet.layout == SystemBlocksLayout(**{**BLOCKS, "default_system_message": None})
    dated = evolve(Release(**BASE, layout=DatedLayout(PROMPT)), refused_roles=("x",))
    assert dated.layout == DatedLayout(PROMPT, refused_roles=("x",))


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        (
            {"system_prompt": PROMPT, "tools_block": BLOCKS["tools_block"]},
            r"Release\(tools_block=\.\.\.\) belongs to SystemBlocksLayout, but the release's "
            r"layout is a DatedLayout: declare layout=SystemBlocksLayout\(tools_block=",
        ),
        (
            {"controls": CONTROLS},
            r"Release\(controls=\.\.\.\) belongs to DatedLayout, but the release's layout is a "
            r"SystemBlocksLayout: declare layout=DatedLayout\(controls=",
        ),
    ],
)
def test_an_earlier_keyword_of_the_other_layout_is_refused_with_the_new_spelling(
    fields: dict[str, Any], message: str
) -> None:
    with pytest.raises(TypeError, match=message):
        legacy(**fields)


def test_earlier_keywords_left_at_their_defaults_are_ignored() -> None:
    old = legacy(system_prompt=None, tools_block=None, controls=None, refused_roles=())
    assert old.layout == SYSTEM_BLOCKS


def test_the_engine_imports_nothing_of_granite3() -> None:
    engine = Path(granite_formatters.__file__).parent / "_engine"
    for path in engine.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                module = node.module or ""
                names = {alias.name for alias in node.names}
                assert "granite3" not in module.split("."), (path.name, module)
                assert not names & {"granite3", "Granite3Kwargs", "Granite3ChatCompletion"}


def test_the_moved_fields_are_read_from_a_release_as_before() -> None:
    dated: Any = Release(**BASE, layout=DatedLayout(**DATED))
    blocks: Any = Release(**BASE, layout=SystemBlocksLayout(**BLOCKS))
    for name, value in DATED.items():
        assert getattr(dated, name) == value
    for name, value in BLOCKS.items():
        assert getattr(blocks, name) == value
    # A field of the other layout reads as the default it had.
    assert (dated.tools_block, dated.always_system, dated.empty_system_separated) == (
        None,
        False,
        True,
    )
    assert (blocks.system_prompt, blocks.refused_roles, blocks.template_writes_calls) == (
        None,
        (),
        True,
    )
    with pytest.raises(AttributeError, match="'Release' object has no attribute 'nope'"):
        dated.nope  # noqa: B018


# -- the one render loop asks the layout ----------------------------------------------------

RENDER = Path(granite_formatters.__file__).parent / "_engine" / "render.py"


@attrs.frozen
class _Asked:
    """A layout of a third class: the writer of the layout it wraps, each question it is
    asked recorded (the renderer must ask, not recognise the layout's class)."""

    inner: DatedLayout | SystemBlocksLayout
    asked: list[str] = attrs.field(factory=list, eq=False)

    def writer(self, processor: Any) -> Any:
        inner = self.inner.writer(processor)
        asked = self.asked

        class Recorded:
            verbatim_roles = inner.verbatim_roles
            documents_turns = inner.documents_turns
            reads_typed = inner.reads_typed
            typed_options = inner.typed_options
            options_prompt = inner.options_prompt

            def head(self, *args: Any) -> Any:
                asked.append("head")
                return inner.head(*args)

            def turn(self, out: list[str], index: int, *args: Any) -> None:
                asked.append(f"turn {index}")
                inner.turn(out, index, *args)

        return Recorded()


@pytest.mark.parametrize(
    ("layout", "today"),
    [(DatedLayout(**DATED), DAY), (SystemBlocksLayout(**BLOCKS), None)],
    ids=["dated", "system-blocks"],
)
def test_the_renderer_asks_a_layout_of_any_class_what_to_write(
    layout: DatedLayout | SystemBlocksLayout, today: datetime.date | None
) -> None:
    asked = _Asked(layout)
    made: Any = Release  # (a layout of a third class: not the declared union)
    release: Release = made(**BASE, layout=asked)
    request = {
        "messages": [
            {"role": "user", "content": "Hi"},
            {"role": "developer", "content": "Odd."},
            {"role": "assistant", "content": "Hello."},
        ],
        "documents": REQUEST["documents"],
    }
    expected = Release(**BASE, layout=layout).input_processor()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DroppedInputWarning)
        prompt = release.input_processor().transform(request, today=today, strict=False)
        assert prompt == expected.transform(request, today=today, strict=False)
    # (the head once; the message of a role the layout does not take as it is, by index)
    assert asked.asked == ["head", "turn 1"]


def test_a_layout_without_a_writer_is_refused_at_declaration() -> None:
    @attrs.frozen
    class Fields:  # (a layout's fields, but nothing the renderer can ask)
        tools_block: SystemBlock | None = None

    made: Any = Release
    with pytest.raises(TypeError, match=r"Release.layout: Fields has no 'writer'"):
        made(**BASE, layout=Fields())


def test_the_render_loop_does_not_branch_on_the_layout_s_class() -> None:
    tree = ast.parse(RENDER.read_text(encoding="utf-8"))
    names = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    imported = {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    modules = {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert not (names | imported) & {"DatedLayout", "SystemBlocksLayout"}
    assert not {module.rsplit(".", 1)[-1] for module in modules} & {
        "_dated_layout",
        "_system_blocks_layout",
    }
    # One function loops over a request's messages: the render loop.
    looping = {
        function.name
        for function in ast.walk(tree)
        if isinstance(function, ast.FunctionDef)
        for loop in ast.walk(function)
        if isinstance(loop, ast.For)
        and {"messages", "rows"}
        & {node.id for node in ast.walk(loop.iter) if isinstance(node, ast.Name)}
    }
    assert looping == {"_render"}
