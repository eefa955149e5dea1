"""The engine's output processor of a Granite 3 release with citations."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._engine.processor import ReleaseOutputProcessor
from ._types import Granite3AssistantMessage

if TYPE_CHECKING:
    from .._processors import RequestLike

__all__ = ["CitedOutputProcessor"]


class CitedOutputProcessor(ReleaseOutputProcessor):
    """The engine's processor of a release with citations: its messages are
    :class:`~granite_formatters.granite3._types.Granite3AssistantMessage`."""

    message_type = Granite3AssistantMessage

    def transform(
        self,
        model_output: str,
        chat_completion: RequestLike | None = None,
        *,
        stop_reason: str | None = None,
    ) -> Granite3AssistantMessage:
        message = super().transform(model_output, chat_completion, stop_reason=stop_reason)
        assert isinstance(message, Granite3AssistantMessage)
        return message
