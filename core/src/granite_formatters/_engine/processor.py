"""The output processor of a :class:`~granite_formatters.Release`: its batch parse and its
stream parsers, both the one parser (``parse.py``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._processors import OutputProcessor
from .._surrogates import has_lone_surrogate
from ..syntax._call_stage import CallMarkers
from ..syntax._marked_stage import lane_firsts
from .parse import ReleaseStreamParser
from .prompt_facts import PromptFacts, defaults_only, prompt_facts

if TYPE_CHECKING:
    from .._processors import RequestLike
    from .._streaming import StreamParser
    from .._types import AssistantMessage
    from ..release import Release

__all__ = ["ReleaseOutputProcessor"]


#: What :meth:`ReleaseOutputProcessor._unread` learns of a parser (see :func:`_lane`).
_Lane = tuple[frozenset[str], "type[AssistantMessage]"]


class ReleaseOutputProcessor(OutputProcessor):
    """Parses the output of one :class:`~granite_formatters.Release`."""

    def __init__(self, release: Release) -> None:
        self.release = release
        self._table: CallMarkers | None = None
        self._defaults: PromptFacts | None = None
        #: The parser's lane for a request of defaults (see :meth:`_unread`), once learned.
        self._lane: _Lane | None = None
        self._learned = False

    def _markers(self) -> CallMarkers:
        """The release's tool-call markers (made on first use: once per release)."""
        table = self._table
        if table is None:
            table = self._table = CallMarkers(self.release)
        return table

    def _facts(self, request: RequestLike | None) -> PromptFacts | None:
        """The release's default facts (made once) for a request that sets nothing the
        parser reads (:func:`~.prompt_facts.defaults_only`), else ``None`` (read anew)."""
        if not defaults_only(request):
            return None
        defaults = self._defaults
        if defaults is None:
            defaults = self._defaults = prompt_facts(self.release, None)
        return defaults

    def _parser(
        self, request: RequestLike | None, deltas: bool, defaults: PromptFacts | None
    ) -> ReleaseStreamParser:
        """A parser for ``request``; with its ``defaults`` (:meth:`_facts`), neither its
        prompt facts nor the citation check are read anew (it reads no citations)."""
        return ReleaseStreamParser(
            self.release, request, deltas=deltas, table=self._markers(), defaults=defaults
        )

    def _unread(self, text: str, defaults: PromptFacts) -> AssistantMessage | None:
        """The message of the whole output ``text`` for a request of ``defaults`` when no
        stage would read it, else ``None``.

        A fresh parser for such a request passes a text holding none of the characters
        its stages' lanes name (the first characters of the markers that the tool-call
        stage and the marked stage, in its first state, look for) to the content unread,
        as its fast lanes do: unless a stage reads every output from its start (a
        reasoning phase, a bare body, citation stages). Its message is then the trimmed
        text as content, as the parser's would be; the parser is built once to learn the
        lane, and that it gives no reasoning, call or note for such content."""
        if not self._learned:
            self._lane = _lane(self._parser(None, False, defaults))
            self._learned = True
        lane = self._lane
        if lane is None:
            return None
        firsts, message_type = lane
        for first in firsts:  # (a few: str's search, not a set's walk of the text)
            if first in text:
                return None
        if has_lone_surrogate(text):  # (the parser replaces and notes it)
            return None
        return message_type(
            content=text.strip(),
            reasoning_content=None,
            tool_calls=[],
            raw_content=text,
            notes=[],
            stop_reason=None,
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ReleaseOutputProcessor):
            return NotImplemented
        return self.release == other.release

    def __hash__(self) -> int:
        return hash(self.release.name)

    def transform(
        self,
        model_output: str,
        chat_completion: RequestLike | None = None,
        *,
        stop_reason: str | None = None,
    ) -> AssistantMessage:
        defaults = self._facts(chat_completion)
        if defaults is not None and stop_reason is None and type(model_output) is str:
            unread = self._unread(model_output, defaults)
            if unread is not None:
                return unread
        parser = self._parser(chat_completion, False, defaults)
        parser.feed(model_output)  # (UTF-8 bytes are decoded, as in a stream)
        parser.close(stop_reason=stop_reason)
        message = parser.message
        assert message is not None
        return message

    def stream_parser(self, chat_completion: RequestLike | None = None) -> StreamParser:
        return self._parser(chat_completion, True, self._facts(chat_completion))


def _lane(parser: ReleaseStreamParser) -> _Lane | None:
    """What :meth:`ReleaseOutputProcessor._unread` needs of a fresh ``parser`` (for a
    request of defaults): the characters a whole output must not hold to pass every
    stage unread (as ``parse.py``'s lanes read them of the stages) and the message type,
    or ``None`` when a stage reads every output, or when the parser's message for an
    empty output has a reasoning, a call or a note (its content would not be all)."""
    calls, marked = parser._stage, parser._marked
    if parser._cite is not None or parser._reasoning.phase is not None:
        return None
    if calls.bare_next or not calls.idle:
        return None
    if marked is None:
        firsts = lane_firsts(calls.markers, None)[0]
    else:
        state = marked.lane()
        if state is None:
            return None
        firsts = lane_firsts(calls.markers, marked.firsts)[state]
    parser.close()
    empty = parser.message
    if empty is None or empty.notes or empty.tool_calls or empty.content:
        return None
    if empty.reasoning_content is not None or empty.raw_content:
        return None
    return firsts, type(empty)
