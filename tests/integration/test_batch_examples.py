"""The batch examples (examples/batch) format on worker processes exactly as in one process."""

from __future__ import annotations

import datetime
import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from granite_formatters import get_formatter

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "batch"
DAY = datetime.date(2025, 4, 16)
MODELS = ["granite-3.2-8b-instruct", "granite-3.3-8b-instruct"]

pytestmark = pytest.mark.skipif(
    not (
        importlib.util.find_spec("granite_formatters_granite32")
        and importlib.util.find_spec("granite_formatters_granite33")
    ),
    reason="needs both bundled plugins installed (the 'all' tox envs)",
)


def load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"batch_{name}", EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # worker processes unpickle functions by module name
    spec.loader.exec_module(module)
    return module


def requests(count: int) -> list[dict[str, Any]]:
    """Varied requests: plain, multi-turn, with documents and citations, with tools."""
    tool = {
        "type": "function",
        "function": {"name": "lookup", "parameters": {"type": "object", "properties": {}}},
    }
    made: list[dict[str, Any]] = []
    for index in range(count):
        messages = [{"role": "user", "content": f"Question number {index}?"}]
        if index % 4 == 1:
            messages = [
                {"role": "user", "content": "Hi"},
                {"role": "assistant", "content": f"Hello #{index}."},
                *messages,
            ]
        request: dict[str, Any] = {"messages": messages}
        if index % 4 == 2:
            request["documents"] = [{"doc_id": str(index), "text": f"Fact {index}."}]
            request["chat_template_kwargs"] = {"controls": {"citations": True}}
        if index % 4 == 3:
            request["tools"] = [tool]
        made.append(request)
    return made


@pytest.mark.parametrize("model", MODELS)
def test_process_pool_matches_one_process(model: str) -> None:
    batch = requests(400)
    expected = [get_formatter(model).format(request, today=DAY) for request in batch]
    prompts = load("process_pool").format_batch(model, batch, workers=2, chunksize=16, today=DAY)
    assert prompts == expected


def test_process_pool_command_line(tmp_path: Path) -> None:
    batch = requests(20)
    source = tmp_path / "requests.jsonl"
    source.write_text("".join(json.dumps(request) + "\n" for request in batch), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / "process_pool.py"), MODELS[0], str(source)],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
        check=True,
    )
    lines = [json.loads(line)["prompt"] for line in done.stdout.splitlines()]
    formatter = get_formatter(MODELS[0])
    assert lines == [formatter.format(request) for request in batch]  # both read the clock


@pytest.mark.parametrize("model", MODELS)
def test_dask_on_local_worker_processes(model: str) -> None:
    pytest.importorskip("dask", reason="Dask is the optional distributed engine of the example")
    cloudpickle = pytest.importorskip("cloudpickle")
    module = load("dask_bag")
    # Loaded by path, the example is no importable module in the workers: ship it by value
    # (as Dask does for a script run as __main__).
    cloudpickle.register_pickle_by_value(module)
    batch = requests(400)
    expected = [get_formatter(model).format(request, today=DAY) for request in batch]
    prompts = module.format_batch(
        model, batch, partitions=4, scheduler="processes", num_workers=2, today=DAY
    )
    assert prompts == expected
