"""The parser's stages keep their state in the parser's slots.

The stages (``syntax/_call_stage.py``, ``syntax/_marked_stage.py``,
``syntax/_reasoning_stage.py``, ``_engine/content.py``) are parts of the one parser
object: each names the slots it keeps (``FIELDS``) and the parser's ``__slots__`` joins
them. A stage that writes a name it does not declare would put it in the instance's
dictionary (the base class has no slots), off the fast path and unowned: after a stream
of every sample, with every chunk size, the dictionary is still empty.
"""

from __future__ import annotations

from typing import Any

from granite_formatters import get_formatter
from granite_formatters._engine.content import ContentOutput
from granite_formatters._engine.parse import ReleaseStreamParser
from granite_formatters._engine.processor import ReleaseOutputProcessor
from granite_formatters.syntax._call_stage import CallStage
from granite_formatters.syntax._marked_stage import MarkedStage
from granite_formatters.syntax._reasoning_stage import ReasoningStage

from .test_stream_fast_paths import all_samples
from support.releases import Release

STAGES: tuple[Any, ...] = (CallStage, MarkedStage, ReasoningStage, ContentOutput)


def test_each_slot_is_kept_by_one_stage_or_the_driver() -> None:
    fields = [name for stage in STAGES for name in stage.FIELDS]
    assert len(fields) == len(set(fields))
    slots = ReleaseStreamParser.__slots__
    assert len(slots) == len(set(slots))
    assert set(fields) <= set(slots)


def test_a_parse_writes_only_declared_slots(release: Release) -> None:
    processor = get_formatter(release.model).output_processor
    assert isinstance(processor, ReleaseOutputProcessor)
    for sample, request in all_samples(release):
        text = "Lead " + sample + " tail"
        for size in (1, 4, len(text)):
            for deltas in (True, False):
                parser = ReleaseStreamParser(processor.release, request, deltas=deltas)
                for start in range(0, len(text), size):
                    parser.feed(text[start : start + size])
                parser.feed(text[:3].encode())  # (bytes: through the decoder)
                parser.close()
                assert parser.message is not None
                assert vars(parser) == {}
