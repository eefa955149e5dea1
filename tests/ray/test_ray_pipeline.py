"""The Ray Data example pipeline (examples/batch/ray_pipeline.py) on a local Ray, against
the fake vLLM backend on a loopback socket: the same output lines as ``granite-format
batch`` for the same file. Runs in the ``ray`` tox env (ray[data] from PyPI)."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ray = pytest.importorskip("ray", reason="needs ray[data] (the 'ray' tox env)")
pytest.importorskip("httpx", reason='needs the serve extra: pip install "./core[ray]"')
if importlib.util.find_spec("granite_formatters_granite33") is None:
    pytest.skip("needs the Granite 3.3 plugin", allow_module_level=True)

from serve.servers import FakeBackend, Script, ServerThread  # noqa: E402

from granite_formatters.cli import main  # noqa: E402

#: Ray's own deprecation warnings (its configuration reads its deprecated settings).
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning:ray.*")

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "batch" / "ray_pipeline.py"
MODEL = "granite3.3:8b"
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "The weather in a city.",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        },
    }
]
TOOL_CALL = '<|tool_call|>[{"name": "get_weather", "arguments": {"city": "Paris"}}]'


def load_example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("ray_pipeline", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # (the actors unpickle the stage classes by module name)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    # (the workers import the example by its name, as the test does)
    where = {"env_vars": {"PYTHONPATH": str(EXAMPLE.parent)}}
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, runtime_env=where)
    context = ray.data.DataContext.get_current()
    context.execution_options.preserve_order = True
    context.enable_progress_bars = False
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def fake() -> Iterator[tuple[FakeBackend, ServerThread]]:
    backend = FakeBackend()
    thread = ServerThread(backend.app)
    yield backend, thread
    thread.stop()


def body(text: str, **more: Any) -> dict[str, Any]:
    return {
        "model": MODEL,
        "messages": [{"role": "user", "content": text}],
        "max_tokens": 200,
        **more,
    }


def line(custom_id: str, data: Any, url: str = "/v1/chat/completions") -> str:
    return json.dumps({"custom_id": custom_id, "method": "POST", "url": url, "body": data})


def write_input(folder: Path, fake: FakeBackend) -> tuple[Path, int]:
    """Good requests (answers in prose, with a tool call, cut at a stop string), bad lines,
    and one request whose backend always fails; the number of lines."""
    from granite_formatters import get_formatter

    formatter = get_formatter(MODEL)
    lines: list[str] = []
    for i in range(24):
        if i % 3 == 0:
            data = body(f"Weather in Paris? ({i})", tools=TOOLS)
            answer = TOOL_CALL
        elif i % 3 == 1:
            data = body(f"Tell me a fact ({i}).", stop=["STOP"], temperature=0.5)
            answer = f"Fact number {i}. STOP and nothing more"
        else:
            data = body(f"Say hello ({i}).")
            answer = f"Hello, number {i}! " * 3
        request = {k: v for k, v in data.items() if k in ("messages", "tools")}
        fake.script(formatter.format(request), Script(answer))
        lines.append(line(f"r{i}", data))
    broken = body("This one always fails.")
    fake.script(formatter.format({"messages": broken["messages"]}), Script("x", fault="status500"))
    lines += [
        line("down", broken),
        "{not json",
        line("wrong-url", body("Hi"), url="/v1/embeddings"),
        line("unknown", {**body("Hi"), "model": "no-such-model"}),
        line("streamed", body("Hi", stream=True)),
        "",
    ]
    source = folder / "requests.jsonl"
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return source, sum(bool(text) for text in lines)


def by_id(lines: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for item in lines:
        # (a line with no custom_id: by its problem, "line 3 is ..." / "the record is ...")
        key = item["custom_id"] or item["error"]["message"].split(" is ", 1)[1]
        assert key not in out or item["custom_id"] is None, key
        out.setdefault(str(key), item)
    return out


def comparable(item: dict[str, Any]) -> Any:
    """What must agree between the two runs: the status and the answer's choices, or the
    error's code and field (a batch file's line numbers are not known to Ray); the
    backend's token counts (``usage``) reach the batch command only."""
    if item["error"] is not None:
        return ("error", item["error"]["code"], item["error"]["param"])
    response = item["response"]
    answer = response["body"]
    if response["status_code"] != 200:
        return (response["status_code"], answer["error"]["param"], answer["error"].get("code"))
    choices = json.loads(json.dumps(answer["choices"]))
    for choice in choices:  # (tool call ids are made afresh for each answer)
        for call in choice["message"].get("tool_calls") or ():
            assert call.pop("id").startswith("call_")
    return (200, answer["model"], choices)


def test_pipeline_equals_the_batch_command(
    local_ray: None, fake: tuple[FakeBackend, ServerThread], tmp_path: Path
) -> None:
    backend, thread = fake
    source, count = write_input(tmp_path, backend)
    url = thread.url + "/v1"

    before = len(backend.requests)
    out = tmp_path / "batch.jsonl"
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = main(["batch", str(source), "--backend", url, "-o", str(out), "--retries", "1",
                     "--backoff", "0.01", "--no-progress"], stdout=io.StringIO(), stderr=err)  # fmt: skip
    assert code == 1  # (lines failed)
    batch_prompts = sorted(body["prompt"] for _k, body in backend.requests[before:])
    batch_lines = [json.loads(t) for t in out.read_text("utf-8").splitlines()]

    before = len(backend.requests)
    example = load_example()
    dataset = example.pipeline(str(source), url, workers=2, concurrency=4, batch_size=8, retries=1)
    ray_lines = [json.loads(row["result"]) for row in dataset.iter_rows()]
    ray_requests = [body for _k, body in backend.requests[before:]]

    # Nothing lost: one output line per input line, in the input's order.
    assert len(ray_lines) == len(batch_lines) == count
    assert [item["custom_id"] for item in ray_lines][:25] == [f"r{i}" for i in range(24)] + ["down"]
    # The same prompts reached the backend (the failing one twice: one retry).
    assert sorted(body["prompt"] for body in ray_requests) == batch_prompts
    # Not streamed, with the answer's special tokens kept and the request's options.
    assert all(body.get("stream") is None for body in ray_requests)
    assert all(body["skip_special_tokens"] is False for body in ray_requests)
    assert {body.get("temperature") for body in ray_requests} == {None, 0.5}
    # The same output lines.
    ray_by_id, batch_by_id = by_id(ray_lines), by_id(batch_lines)
    assert ray_by_id.keys() == batch_by_id.keys()
    for key, item in batch_by_id.items():
        assert comparable(ray_by_id[key]) == comparable(item), key
    calls = ray_by_id["r0"]["response"]["body"]["choices"][0]["message"]["tool_calls"]
    assert [call["function"]["name"] for call in calls] == ["get_weather"]
    assert (
        ray_by_id["r1"]["response"]["body"]["choices"][0]["message"]["content"] == "Fact number 1."
    )
    down = ray_by_id["down"]["response"]
    assert down["status_code"] == 502
    assert "the backend answered 500" in down["body"]["error"]["message"]
