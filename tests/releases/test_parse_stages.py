"""The parser is a driver that holds its stages as objects, each with its own state.

The stages (``syntax/_call_stage.py``, ``syntax/_marked_stage.py``,
``syntax/_reasoning_stage.py``, ``_engine/content.py``) are objects the driver
(``_engine/parse.py``) builds and feeds: it does not inherit from them, each keeps its
state in its own slots (no instance dictionary: a name a stage did not declare cannot be
written), and the driver reads no stage's private state (its lanes ask the stages
through their public methods and properties). The driver's own state is in its slots
too: after a stream of every sample, with every chunk size, its dictionary (the base
class has none of its own slots) is still empty.
"""

from __future__ import annotations

import ast
import inspect
from typing import Any

from granite_formatters import get_formatter
from granite_formatters._engine import parse
from granite_formatters._engine.content import ContentOutput
from granite_formatters._engine.parse import ReleaseStreamParser
from granite_formatters._engine.processor import ReleaseOutputProcessor
from granite_formatters.syntax._call_stage import CallStage
from granite_formatters.syntax._marked_stage import MarkedStage
from granite_formatters.syntax._reasoning_stage import ReasoningStage

from .test_stream_fast_paths import all_samples
from support.releases import Release

STAGES: tuple[type[Any], ...] = (CallStage, MarkedStage, ReasoningStage, ContentOutput)


def test_the_driver_inherits_from_no_stage() -> None:
    for stage in STAGES:
        assert not issubclass(ReleaseStreamParser, stage), stage.__name__


def test_the_driver_reads_no_private_name_of_another_object() -> None:
    # Every ``x._name`` in the driver is one of its own (``self._name``).
    tree = ast.parse(inspect.getsource(parse))
    foreign = [
        f"{ast.unparse(node)} (line {node.lineno})"
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and node.attr.startswith("_")
        and not node.attr.startswith("__")
        and not (isinstance(node.value, ast.Name) and node.value.id == "self")
    ]
    assert foreign == []


def _stages(parser: ReleaseStreamParser) -> list[object]:
    """The stage objects the driver holds."""
    held = [getattr(parser, name, None) for name in ReleaseStreamParser.__slots__]
    return [each for each in held if isinstance(each, STAGES)]


def test_a_parse_writes_only_declared_slots(release: Release) -> None:
    processor = get_formatter(release.model).output_processor
    assert isinstance(processor, ReleaseOutputProcessor)
    for sample, request in all_samples(release):
        text = "Lead " + sample + " tail"
        for size in (1, 4, len(text)):
            for deltas in (True, False):
                parser = ReleaseStreamParser(processor.release, request, deltas=deltas)
                stages = _stages(parser)
                assert {type(stage) for stage in stages} >= {CallStage, ContentOutput}
                for start in range(0, len(text), size):
                    parser.feed(text[start : start + size])
                parser.feed(text[:3].encode())  # (bytes: through the decoder)
                parser.close()
                assert parser.message is not None
                assert vars(parser) == {}
                for stage in stages:
                    assert not hasattr(stage, "__dict__")
                    # (every slot was set when the stage was built or since)
                    slots: tuple[str, ...] = type(stage).__slots__  # type: ignore[attr-defined]
                    assert all(hasattr(stage, name) for name in slots)
