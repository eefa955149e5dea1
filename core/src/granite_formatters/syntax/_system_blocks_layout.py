"""The Granite 4.x prompt layout (role tokens or ChatML): the tools and documents as
blocks of the system turn, and what an empty system turn becomes.

A release names this layout as its ``layout`` (the default: no blocks, no default
system message); the core's renderer asks it what the system turn holds and how
messages of other roles are written. See ``docs/syntaxes.md``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

if TYPE_CHECKING:
    from .._engine.render import ReleaseInputProcessor
    from ._blocks import SystemBlock
    from ._system_blocks_writer import SystemBlocksWriter

__all__ = ["SYSTEM_BLOCKS", "SystemBlocksLayout"]


@attrs.frozen
class SystemBlocksLayout:
    """The layout of a release whose template lists the tools and documents in the
    system turn (Granite 4.0, 4.1 with role tokens, 4.2 with ChatML).

    ``tools_block`` and ``documents_block`` list the request's tools and documents after
    the system text, a blank line apart (``None``: the template does not render them).
    ``default_system_message`` is printed when the system text is empty (``None``: no
    system turn then, unless ``always_system``, which prints an empty one).
    ``empty_system_separated`` is true when a caller's empty system text is still
    followed by the blank line before the blocks (Granite 4.0/4.1).
    ``renders_other_roles`` is true when the template prints a message of any other role
    as a turn of that role (Granite 4.2) rather than dropping it; either way such a
    message is refused in strict mode.
    """

    tools_block: SystemBlock | None = None
    documents_block: SystemBlock | None = None
    default_system_message: str | None = None
    always_system: bool = False
    empty_system_separated: bool = True
    renders_other_roles: bool = False

    def writer(self, processor: ReleaseInputProcessor) -> SystemBlocksWriter:
        """The layout bound to ``processor``: what the renderer's loop asks it to write
        (``_system_blocks_writer.py``)."""
        from ._system_blocks_writer import SystemBlocksWriter

        return SystemBlocksWriter(self, processor)


#: The layout of a release that declares none: no blocks, no default system message.
SYSTEM_BLOCKS = SystemBlocksLayout()
