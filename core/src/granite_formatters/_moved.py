"""Where the modules made private left their public names, for load-time errors.

A plugin written against the earlier contract may import one of these modules; the
plugin host and the registry then add :func:`moved_hint` to its
:class:`~granite_formatters.errors.PluginLoadError`, so the error names the public
module to import from, not only the missing one.
"""

from __future__ import annotations

# The old import paths here are meant (face_rename: keep old paths).

__all__ = ["MOVED", "moved_hint"]

_NO_PUBLIC_FACE = "private; nothing in it is for plugins (docs/api.md, 'The public surface')"
_GRANITE3 = "private; its public names are in granite_formatters.granite3"
_SYNTAX = "private; its public names are in granite_formatters.syntax"
_SERVE = "private; create_app and ServeConfig are in granite_formatters.serve"
_BATCH = "private; nothing in it is for plugins (granite-format batch is the command)"

#: A module made private -> what became of its public names.
MOVED: dict[str, str] = {
    "granite_formatters.processors": (
        "private; Formatter, InputProcessor, OutputProcessor and RequestLike are in "
        "granite_formatters, MessageStream in granite_formatters.streaming"
    ),
    "granite_formatters.serve.app": _SERVE,
    "granite_formatters.serve.options": _SERVE,
    **{
        f"granite_formatters.batch.{name}": _BATCH
        for name in ("cli", "lines", "offline", "progress", "runner")
    },
    "granite_formatters.granite3.tokens": _GRANITE3,
    "granite_formatters.granite3.types": _GRANITE3,
    "granite_formatters.granite3.co_format": _GRANITE3,
    "granite_formatters.granite3.cite_format": _GRANITE3,
    "granite_formatters.granite3.citations": _GRANITE3,
    "granite_formatters.granite3.dates": _GRANITE3,
    "granite_formatters.syntax.blocks": _SYNTAX,
    "granite_formatters.syntax.context_turns": _SYNTAX,
    "granite_formatters.syntax.controls": _SYNTAX,
    "granite_formatters.syntax.json_blocks": _SYNTAX,
    "granite_formatters.syntax.json_list": _SYNTAX,
    "granite_formatters.syntax.marked_reasoning": _SYNTAX,
    "granite_formatters.syntax.protocols": _SYNTAX,
    "granite_formatters.syntax.reasoning": _SYNTAX,
    "granite_formatters.syntax.system_prompt": _SYNTAX,
    "granite_formatters.syntax.turns": _SYNTAX,
    "granite_formatters.syntax.xml_functions": _SYNTAX,
    "granite_formatters.syntax.citations": _GRANITE3,
    **{
        f"granite_formatters.{name}": _NO_PUBLIC_FACE
        for name in (
            "cli",
            "doctor",
            "hf_template",
            "jsonscan",
            "jsonwriter",
            "names",
            "plaindicts",
            "plugins",
            "registry",
            "toolcalljson",
        )
    },
}


def moved_hint(error: BaseException) -> str:
    """``""``, or a sentence for a load error caused by importing a moved module (or a
    name a public module no longer exports)."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, ImportError) and current.name:
            name = current.name
            if isinstance(current, ModuleNotFoundError):
                for old, fate in MOVED.items():
                    if name == old or name.startswith(old + "."):
                        return f" ({old} is {fate})"
            elif name.startswith("granite_formatters") and "cannot import name" in str(current):
                return (
                    f" ({name} exports only the names of its __all__; "
                    "see docs/api.md, 'The public surface')"
                )
        current = current.__cause__ or current.__context__
    return ""
