"""The output processor of a :class:`~granite_formatters.Release`: its batch parse and its
stream parsers, both the one parser (``parse.py``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._processors import OutputProcessor
from ..syntax._call_stage import CallMarkers
from .parse import ReleaseStreamParser

if TYPE_CHECKING:
    from .._processors import RequestLike
    from .._streaming import StreamParser
    from .._types import AssistantMessage
    from ..release import Release

__all__ = ["ReleaseOutputProcessor"]


class ReleaseOutputProcessor(OutputProcessor):
    """Parses the output of one :class:`~granite_formatters.Release`."""

    def __init__(self, release: Release) -> None:
        self.release = release
        self._table: CallMarkers | None = None

    def _markers(self) -> CallMarkers:
        """The release's tool-call markers (made on first use: once per release)."""
        table = self._table
        if table is None:
            table = self._table = CallMarkers(self.release)
        return table

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
        parser = ReleaseStreamParser(
            self.release, chat_completion, deltas=False, table=self._markers()
        )
        parser.feed(model_output)  # (UTF-8 bytes are decoded, as in a stream)
        parser.close(stop_reason=stop_reason)
        message = parser.message
        assert message is not None
        return message

    def stream_parser(self, chat_completion: RequestLike | None = None) -> StreamParser:
        return ReleaseStreamParser(self.release, chat_completion, table=self._markers())
