"""The parser's reasoning stage: the reasoning sink (reasoning trimmed as content is, and
its deltas) and the phase at the start of the output that an
:class:`~granite_formatters.syntax._reasoning.OpenedReasoningReader` reads (reasoning
the prompt may have opened).

Like the other stages it is a part of the parser (``_engine/parse.py``): it keeps its
state on the parser and declares what it uses of the parser.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar

from .._streaming import Delta, reasoning_delta
from ._reasoning import OpenedReasoningReader

if TYPE_CHECKING:
    from .._engine.prompt_facts import PromptFacts
    from ..release import Release

__all__ = ["ReasoningStage"]


class ReasoningStage:
    """The reasoning stage of the parser (see the module docstring)."""

    #: The parser's slots that hold this stage's state.
    FIELDS: ClassVar[tuple[str, ...]] = (
        "_r_seen",
        "_r_spaces",
        "_r_started",
        "_reasoning",
        "_think",
    )

    _reasoning: list[str]  # the reasoning passed on
    _r_started: bool
    _r_spaces: list[str]  # its trailing blanks, held back
    _r_seen: bool  # a start marker was read (the reasoning is "" at least)
    _think: OpenedReasoningReader | None  # the reader of the phase, while it lasts

    # What the stage uses of the parser.
    _notes: list[str]
    _deltas: bool
    _out: list[Delta]
    _offset: int  # (the tool-call stage's: where the content it reads starts)
    _flush_text: Callable[[], None]
    _read: Callable[[str], None]  # the tool-call stage
    _open_lanes: Callable[[], None]  # the phase is over

    def _reasoning_setup(self, release: Release, facts: PromptFacts | None, phase: bool) -> None:
        """The stage's state for an output of ``release``; ``phase``: whether the
        reasoning the prompt may have opened is read here (else the marked stage reads
        the reasoning, if any)."""
        self._reasoning = []
        self._r_started = False
        self._r_spaces = []
        self._r_seen = False
        self._think = None
        reasoning = release.reasoning
        if phase and reasoning is not None and facts is not None and not facts.continued:
            # (the answer to a continued message continues its content: no reasoning)
            syntax = release.tool_calls
            self._think = OpenedReasoningReader(
                reasoning,
                facts.options,
                opened=facts.opens_reasoning(release),
                stopper=syntax.open if syntax is not None else "",
                emit=self._emit_reasoning,
                notes=self._notes,
            )

    def _emit_reasoning(self, text: str) -> None:
        """Reasoning, with its leading and trailing whitespace removed (as content's)."""
        if not text:
            return
        if not self._r_started:
            text = text.lstrip()
            if not text:
                return
            self._r_started = True
        stripped = text.rstrip()
        if not stripped:
            self._r_spaces.append(text)
            return
        body = "".join(self._r_spaces) + stripped
        self._r_spaces = [text[len(stripped) :]] if len(stripped) < len(text) else []
        self._reasoning.append(body)
        if self._deltas:
            self._flush_text()
            self._out.append(reasoning_delta(body))

    def _reason(self, text: str) -> str:
        """The reasoning phase: what follows the reasoning in ``text``, for the tool-call
        stage, once it is over."""
        reader = self._think
        assert reader is not None
        rest = reader.take(text)
        if rest is None:
            return ""
        self._reasoning_done(reader)
        return rest

    def _reasoning_done(self, reader: OpenedReasoningReader) -> None:
        """The reasoning phase is over: the tool-call stage reads on."""
        self._think = None
        self._r_seen = reader.seen
        self._offset += reader.at
        self._open_lanes()

    def _reasoning_end(self) -> None:
        """The output ended: a phase still open ends (what it held that turns out to be
        content is read)."""
        reader = self._think
        if reader is not None:
            rest = reader.end()
            self._reasoning_done(reader)
            if rest:
                self._read(rest)

    def _reasoning_text(self) -> str | None:
        """The message's reasoning (``None`` when none was opened)."""
        reasoning = "".join(self._reasoning)
        return reasoning if reasoning or self._r_seen else None
