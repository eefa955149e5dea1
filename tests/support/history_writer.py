"""A :class:`~granite_formatters.syntax.HistoryWriter` for syntax tests: caller text as it
is, JSON as the templates' ``tojson``, problems raised."""

from __future__ import annotations

import json
from typing import Any

from granite_formatters._errors import InvalidRequestError


class PlainWriter:
    """Writes caller data verbatim (the ``keep`` special-token policy)."""

    def __init__(self) -> None:
        self.fields: list[str] = []

    def text(self, value: str, field: str) -> str:
        self.fields.append(field)
        return value

    def json(self, value: Any, field: str) -> str:
        self.fields.append(field)
        return json.dumps(value, ensure_ascii=False)

    def problem(self, message: str, field: str) -> None:
        raise InvalidRequestError(message, field=field)
