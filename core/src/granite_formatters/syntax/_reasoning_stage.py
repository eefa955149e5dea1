"""The parser's reasoning stage: the reasoning sink (reasoning trimmed as content is, and
its deltas) and the phase at the start of the output that an
:class:`~granite_formatters.syntax._reasoning.OpenedReasoningReader` reads (reasoning
the prompt may have opened).

An object the parser (``_engine/parse.py``) holds, with its own state; the marked stage
writes to its sink too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from .._streaming import reasoning_delta
from ._reasoning import OpenedReasoningReader

if TYPE_CHECKING:
    from .._engine.content import ContentOutput
    from .._engine.prompt_facts import PromptFacts
    from ..release import Release
    from ._call_stage import CallStage

__all__ = ["ReasoningStage"]


class ReasoningStage:
    """The reasoning stage of the parser (see the module docstring)."""

    __slots__ = ("_calls", "_done", "_out", "_reasoning", "_spaces", "_started", "phase", "seen")

    def __init__(
        self,
        release: Release,
        facts: PromptFacts | None,
        phase: bool,
        calls: CallStage,
        out: ContentOutput | None,
        notes: list[str],
        done: Callable[[], None],
    ) -> None:
        """The stage for an output of ``release``; ``phase``: whether the reasoning the
        prompt may have opened is read here (else the marked stage reads the reasoning,
        if any); the text after it goes to ``calls``, its deltas to ``out`` (``None``:
        none are made), and ``done`` is called when the phase is over. (Positional, as
        :class:`~._call_stage.CallStage`'s.)"""
        self._reasoning: list[str] = []  # the reasoning passed on
        self._started = False
        self._spaces: list[str] = []  # its trailing blanks, held back
        self._calls = calls
        self._out = out
        self._done = done
        #: A start marker was read (the reasoning is "" at least).
        self.seen = False
        #: The reader of the phase, while it lasts.
        self.phase: OpenedReasoningReader | None = None
        reasoning = release.reasoning
        if phase and reasoning is not None and facts is not None and not facts.continued:
            # (the answer to a continued message continues its content: no reasoning)
            syntax = release.tool_calls
            opened = facts.opens_reasoning(release)
            stopper = syntax.open if syntax is not None else ""
            self.phase = OpenedReasoningReader(
                reasoning, facts.options, opened, stopper, self.emit, notes
            )

    def emit(self, text: str) -> None:
        """Reasoning, with its leading and trailing whitespace removed (as content's)."""
        if not text:
            return
        if not self._started:
            text = text.lstrip()
            if not text:
                return
            self._started = True
        stripped = text.rstrip()
        if not stripped:
            self._spaces.append(text)
            return
        body = "".join(self._spaces) + stripped
        self._spaces = [text[len(stripped) :]] if len(stripped) < len(text) else []
        self._reasoning.append(body)
        if self._out is not None:
            self._out.put(reasoning_delta(body))

    def opened(self) -> None:
        """A start marker was read (by the marked stage): the reasoning is "" at least."""
        self.seen = True

    def read(self, text: str) -> str:
        """The phase reads ``text``: what follows the reasoning in it, for the tool-call
        stage, once the phase is over."""
        reader = self.phase
        assert reader is not None
        rest = reader.take(text)
        if rest is None:
            return ""
        self._phase_done(reader)
        return rest

    def _phase_done(self, reader: OpenedReasoningReader) -> None:
        """The phase is over: the tool-call stage reads on."""
        self.phase = None
        self.seen = reader.seen
        self._calls.skip(reader.at)
        self._done()

    def end(self) -> None:
        """The output ended: a phase still open ends (what it held that turns out to be
        content is read)."""
        reader = self.phase
        if reader is not None:
            rest = reader.end()
            self._phase_done(reader)
            if rest:
                self._calls.read(rest)

    def text(self) -> str | None:
        """The message's reasoning (``None`` when none was opened)."""
        reasoning = "".join(self._reasoning)
        return reasoning if reasoning or self.seen else None
