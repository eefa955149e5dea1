"""A release as a value: the syntaxes, wording, tokens and options of one Granite release.

A plugin declares a :class:`Release` and registers its model names with
``register(model_id, release=...)``; the core's one renderer and one parser run it.
See ``docs/syntaxes.md``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import attrs

if TYPE_CHECKING:
    from ._processors import InputProcessor, OutputProcessor
    from ._special_tokens import SpecialTokens
    from .syntax._citations.format import CitationFormat
    from .syntax._dated_layout import DatedLayout
    from .syntax._protocols import ReasoningSyntax, ToolCallSyntax, TurnSyntax
    from .syntax._system_blocks_layout import SystemBlocksLayout

    #: Where a release puts the system text, tools and documents.
    _Layout = DatedLayout | SystemBlocksLayout

__all__ = ["Option", "Release"]


def _no_layout() -> SystemBlocksLayout:
    """The layout of a release that declares none (no blocks, no default system turn)."""
    from .syntax._system_blocks_layout import SYSTEM_BLOCKS

    return SYSTEM_BLOCKS


def _check_layout(release: Any, attribute: Any, layout: Any) -> None:
    """Refuse at declaration a layout the renderer cannot ask what to write (one without
    ``writer``, see ``syntax/_protocols.py``'s ``Layout``)."""
    if not callable(getattr(layout, "writer", None)):
        raise TypeError(
            f"Release.layout: {type(layout).__name__} has no 'writer', which every layout "
            "gives; declare layout=SystemBlocksLayout(...) or layout=DatedLayout(...) "
            "(see docs/syntaxes.md)"
        )


@attrs.frozen
class Option:
    """A ``chat_template_kwargs`` key the release's template reads.

    ``check`` returns why a given value is refused (``None``: accepted): a message, or
    ``(path, message)`` when a part of the value is at fault (the error's field is then
    ``chat_template_kwargs.<name>.<path>``); a value that is null takes :attr:`default`.
    """

    name: str
    default: Any = None
    check: Callable[[Any], str | tuple[str, str] | None] | None = None


#: The keywords ``Release`` took before the layouts were values (plugin API 1.4), each
#: now a field of its layout: given to ``Release``, they are set on the layout.
_MOVED_TO_LAYOUT = {
    "system_prompt": "DatedLayout",
    "tools_turn": "DatedLayout",
    "documents_turns": "DatedLayout",
    "controls": "DatedLayout",
    "refused_roles": "DatedLayout",
    "record_tokens_lead": "DatedLayout",
    "template_writes_calls": "DatedLayout",
    "tools_block": "SystemBlocksLayout",
    "documents_block": "SystemBlocksLayout",
    "default_system_message": "SystemBlocksLayout",
    "always_system": "SystemBlocksLayout",
    "empty_system_separated": "SystemBlocksLayout",
    "renders_other_roles": "SystemBlocksLayout",
}


#: The value each moved keyword had on a release that did not set it.
_OLD_DEFAULTS: dict[str, Any] = {
    **dict.fromkeys(_MOVED_TO_LAYOUT),
    "refused_roles": (),
    "record_tokens_lead": False,
    "template_writes_calls": True,
    "always_system": False,
    "empty_system_separated": True,
    "renders_other_roles": False,
}


def _layout_of(kwargs: dict[str, Any]) -> Any:
    """The layout of a ``Release(...)`` call that gives fields of its layout as keywords
    of their own (the spelling before the layouts were values): the given ``layout``, or
    the one those fields name, with them set."""
    from .syntax._dated_layout import DatedLayout
    from .syntax._system_blocks_layout import SYSTEM_BLOCKS

    moved = {key: kwargs.pop(key) for key in list(kwargs) if key in _MOVED_TO_LAYOUT}
    layout = kwargs.get("layout")
    if layout is None:
        if moved.get("system_prompt") is not None:
            layout = DatedLayout(moved.pop("system_prompt"))
        else:
            layout = SYSTEM_BLOCKS
    fields = attrs.fields_dict(type(layout))
    for key in list(moved):
        if key not in fields:
            if moved[key] == _OLD_DEFAULTS[key]:  # (nothing to carry)
                del moved[key]
                continue
            raise TypeError(
                f"Release({key}=...) belongs to {_MOVED_TO_LAYOUT[key]}, but the release's "
                f"layout is a {type(layout).__name__}: declare "
                f"layout={_MOVED_TO_LAYOUT[key]}({key}=..., ...) instead"
            )
    return attrs.evolve(layout, **moved)


class _ReleaseType(type):
    """Maps the keywords that moved to the layout (see :data:`_MOVED_TO_LAYOUT`) onto
    ``layout``, so that a release declared before keeps working."""

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        if not _MOVED_TO_LAYOUT.keys().isdisjoint(kwargs):
            kwargs["layout"] = _layout_of(kwargs)
        return super().__call__(*args, **kwargs)


def _tool_calls(syntax: ToolCallSyntax | None) -> ToolCallSyntax | None:
    """A plugin's syntax written against an earlier contract, adapted once (see
    ``syntax/_earlier_contract.py``)."""
    from .syntax._earlier_contract import current_tool_calls

    return current_tool_calls(syntax)


def _reasoning(syntax: ReasoningSyntax | None) -> ReasoningSyntax | None:
    """As :func:`_tool_calls`, for the reasoning syntax."""
    from .syntax._earlier_contract import current_reasoning

    return current_reasoning(syntax)


@attrs.frozen
class Release(metaclass=_ReleaseType):
    """One Granite release's prompt and output format, composed of syntaxes.

    ``name`` (``"Granite 4.1"``) and ``family`` (``"Granite 4"``) appear in messages.
    ``turns`` is the turn syntax and ``layout`` where the system text, tools and
    documents go: a :class:`~granite_formatters.syntax.SystemBlocksLayout` (Granite 4.x,
    the default) or a :class:`~granite_formatters.syntax.DatedLayout` (Granite 3.x).
    ``special_tokens`` are the tokens caller text may not hold; ``record_tokens`` those a
    past assistant turn may hold (what the model itself writes). ``options`` are the
    template options read, with their defaults; ``option_hints`` explain keys of other
    releases the template ignores. ``stop_strings`` end a generation.
    ``template_joins_parts`` is true when the official template reads content-part lists
    itself (Granite 4.0/4.1); when false (a template that prints only strings) text parts
    are joined with newlines as servers join them.

    ``citations`` is the release's citation syntax (Granite 3.x: ``CO_CITATIONS``,
    ``CITE_TOKEN_CITATIONS``); the output of a release that declares one is also read
    for citations, sections and hallucinations (its messages are
    ``Granite3AssistantMessage``). ``tool_call_markers`` are further markers that open a
    tool call in output besides ``tool_calls.open`` (Granite 3.x: ``<tool_call>``);
    ``tool_call_ends`` are end markers removed from the content wherever they stand
    outside a block (noted when no call came before; Granite 3.x: ``</tool_call>``).
    ``dropped_tokens`` are removed from the output wherever they stand, reasoning and
    tool-call bodies included (Granite 3.x: ``<|end_of_text|>``).

    The layout's fields were keywords of ``Release`` before (``system_prompt=``,
    ``tools_block=``, ...): given so, they are set on the layout they belong to.
    """

    name: str
    family: str
    turns: TurnSyntax
    special_tokens: SpecialTokens
    stop_strings: tuple[str, ...]
    layout: _Layout = attrs.field(factory=_no_layout, validator=_check_layout)
    tool_calls: ToolCallSyntax | None = attrs.field(default=None, converter=_tool_calls)
    reasoning: ReasoningSyntax | None = attrs.field(default=None, converter=_reasoning)
    record_tokens: tuple[str, ...] = ()
    options: tuple[Option, ...] = ()
    option_hints: Mapping[str, str] = attrs.field(factory=dict, hash=False)
    template_joins_parts: bool = True
    citations: CitationFormat | None = None
    tool_call_markers: tuple[str, ...] = ()
    tool_call_ends: tuple[str, ...] = ()
    dropped_tokens: tuple[str, ...] = ()

    if not TYPE_CHECKING:  # (typed code reads them from the layout)

        def __getattr__(self, name: str) -> Any:
            # A field that moved to the layout, read as before (a plugin written against
            # plugin API 1.4): the layout's value, or the old default when the release's
            # layout has no such field.
            if name in _MOVED_TO_LAYOUT:
                return getattr(self.layout, name, _OLD_DEFAULTS[name])
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def option(self, name: str) -> Option | None:
        """The declared option ``name``, or ``None``."""
        for option in self.options:
            if option.name == name:
                return option
        return None

    def input_processor(self) -> InputProcessor:
        """A new input processor rendering this release's prompts."""
        from ._engine.render import ReleaseInputProcessor

        return ReleaseInputProcessor(self)

    def output_processor(self) -> OutputProcessor:
        """A new output processor parsing this release's output."""
        if self.citations is not None:
            from .granite3._output_processor import CitedOutputProcessor

            return CitedOutputProcessor(self)
        from ._engine.processor import ReleaseOutputProcessor

        return ReleaseOutputProcessor(self)
