"""The progress bar of ``granite-format batch``: on a terminal only, from the ``batch`` extra."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TextIO

from .runner import Tally

__all__ = ["progress_bar", "summary"]


def summary(tally: Tally, seconds: float) -> str:
    """One line about a finished (or interrupted) run."""
    rate = tally.done / seconds if seconds > 0 else 0.0
    text = (
        f"{tally.done} lines written ({tally.failed} failed) in {seconds:.1f} s, {rate:.1f} lines/s"
    )
    if tally.skipped:
        text += f"; {tally.skipped} already in the output"
    if tally.retried:
        text += f"; {tally.retried} tries repeated"
    return text


@contextmanager
def progress_bar(stream: TextIO, enabled: bool = True) -> Iterator[Callable[[Tally], None]]:
    """A callback that shows ``Tally`` as a bar on ``stream`` (done, failed, rate, time
    left) when it is a terminal and tqdm is installed; else a callback that does nothing."""
    bar: Any = None
    if enabled and stream.isatty():
        try:
            from tqdm import tqdm  # type: ignore[import-untyped,unused-ignore]
        except ImportError:
            sys.stderr.write(
                "granite-format batch: no progress bar (pip install 'granite-formatters[batch]')\n"
            )
        else:
            bar = tqdm(total=0, file=stream, unit="line", dynamic_ncols=True)

    def update(tally: Tally) -> None:
        if bar is None:
            return
        bar.total = tally.total - tally.skipped
        bar.set_postfix_str(f"failed={tally.failed}", refresh=False)
        bar.update(tally.done - bar.n)  # (tqdm shows the rate and the time left)

    try:
        yield update
    finally:
        if bar is not None:
            bar.close()
