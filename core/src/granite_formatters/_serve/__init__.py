"""``granite-format serve``: an OpenAI chat endpoint in front of a raw completions server.

The server formats each OpenAI chat request with the model's formatter, sends the prompt to
a completions backend (an OpenAI-compatible ``/v1/completions``, llama.cpp's native
``/completion`` or Ollama's ``/api/generate`` in raw mode) and answers with the parsed
message, streamed or not. It needs the optional ``serve`` extra::

    pip install "./core[serve]"

>>> from granite_formatters.serve import ServeConfig, create_app    # doctest: +SKIP
>>> app = create_app(ServeConfig(backend="http://127.0.0.1:8001/v1"))   # doctest: +SKIP
"""

from __future__ import annotations

import importlib.util

_NEEDED = ("starlette", "uvicorn", "httpx", "httpx_sse", "sse_starlette", "aiohttp")
_missing = [name for name in _NEEDED if importlib.util.find_spec(name) is None]
if _missing:
    raise ImportError(
        f"granite-format serve needs the optional 'serve' extra (missing: {', '.join(_missing)}); "
        'install it with: pip install "./core[serve]"'
    )

from .app import create_app  # noqa: E402
from .options import ServeConfig  # noqa: E402

__all__ = ["ServeConfig", "create_app"]
