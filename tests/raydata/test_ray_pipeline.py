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

pytest.importorskip("ray.data", reason="needs ray[data] (the 'ray' tox env)")
ray = pytest.importorskip("ray")
pytest.importorskip("httpx", reason='needs the serve extra: pip install "./core[ray]"')
if importlib.util.find_spec("granite_formatters_granite33") is None:
    pytest.skip("needs the Granite 3.3 plugin", allow_module_level=True)

from serve.servers import FakeBackend, Script, ServerThread  # noqa: E402
from serve.test_serve_batch import MODEL, TOOL_CALL, TOOLS  # noqa: E402

from granite_formatters._cli import main  # noqa: E402

#: Ray's own deprecation warnings (its configuration reads its deprecated settings), and
#: its advice when a small file gives fewer blocks than a stage has actors.
pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning:ray.*"),
    pytest.mark.filterwarnings("ignore:The minimum number of concurrent actors:UserWarning"),
]

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "batch" / "ray_pipeline.py"


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


def test_the_docs_command_runs_as_written(
    local_ray: None,
    fake: tuple[FakeBackend, ServerThread],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """docs/batch.md's Ray command, on the doc's requests.jsonl, against the fake backend
    (its URL in place of the doc's)."""
    from granite_formatters import get_formatter

    doc = (Path(__file__).resolve().parents[2] / "docs" / "batch.md").read_text("utf-8")
    commands = [
        t for t in doc.splitlines() if t.startswith("python examples/batch/ray_pipeline.py")
    ]
    assert len(commands) == 1
    backend, thread = fake
    start = doc.index("```json requests.jsonl\n") + len("```json requests.jsonl\n")
    requests = doc[start : doc.index("```", start)]
    (tmp_path / "requests.jsonl").write_text(requests, encoding="utf-8")
    answers = {"q1": "The capital of France is Paris.", "q2": TOOL_CALL}
    for text in requests.splitlines():
        data = json.loads(text)
        request = {k: v for k, v in data["body"].items() if k in ("messages", "tools")}
        prompt = get_formatter(data["body"]["model"]).format(request)
        backend.script(prompt, Script(answers[data["custom_id"]]))
    words = commands[0].replace("http://127.0.0.1:8001", thread.url).split()
    assert words[:2] == ["python", "examples/batch/ray_pipeline.py"]
    monkeypatch.chdir(tmp_path)
    assert load_example().main(words[2:]) == 0
    lines = [json.loads(t) for t in (tmp_path / "results.jsonl").read_text("utf-8").splitlines()]
    assert [item["custom_id"] for item in lines] == ["q1", "q2"]
    messages = [item["response"]["body"]["choices"][0]["message"] for item in lines]
    assert messages[0] == {"role": "assistant", "content": "The capital of France is Paris."}
    assert messages[1]["tool_calls"][0]["function"]["name"] == "get_weather"


def test_pandas_batches_give_what_dict_batches_give() -> None:
    """Ray's pandas batch format (pandas comes with ray[data]): the same columns and
    values as a dict of columns, missing values (NaN in pandas) read as missing."""
    import pandas
    from serve.test_serve_batch_ray_stages import LINES, parse_extra, without_ids

    from granite_formatters.batch import FormatStage, ParseStage

    columns = {"text": LINES, "line": list(range(1, len(LINES) + 1))}
    as_dict = FormatStage()(columns)
    frame = FormatStage()(pandas.DataFrame(columns))
    assert isinstance(frame, pandas.DataFrame) and list(frame.columns) == list(as_dict)
    # (pandas holds a missing string as NaN; error lines have fresh ids)
    got = frame.astype(object).where(frame.notna(), None).to_dict("list")
    results = [(r and without_ids(json.loads(r)), w and without_ids(json.loads(w)))
               for r, w in zip(got.pop("result"), as_dict["result"], strict=True)]  # fmt: skip
    assert all(r == w for r, w in results) and sum(r is not None for r, _ in results) == 5
    assert got == {name: values for name, values in as_dict.items() if name != "result"}
    for name, values in parse_extra({"custom_id": None}).items():  # (no text for any record)
        as_dict[name] = [values] * len(LINES)
    parsed = ParseStage()(pandas.DataFrame(as_dict))
    expected = ParseStage()(as_dict)
    assert len(parsed) == len(LINES)
    for got, want in zip(parsed["result"], expected["result"], strict=True):
        assert without_ids(json.loads(got)) == without_ids(json.loads(want))
    assert json.loads(parsed["result"][0])["response"]["status_code"] == 502
