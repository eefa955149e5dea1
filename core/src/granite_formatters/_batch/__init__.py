"""``granite-format batch``: OpenAI Batch API files through a completions backend.

Needs the ``serve`` extra (it sends requests with the server's backend code); the
progress bar, the ``batch`` extra.
"""

from __future__ import annotations

__all__: list[str] = []
