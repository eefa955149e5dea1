#!/usr/bin/env python3
"""What ``granite-format serve`` adds per request and per streamed chunk (loopback, fake backend).

    python benchmarks/serve_overhead.py                    # full run (about a minute)
    python benchmarks/serve_overhead.py --quick            # a few seconds
    python benchmarks/serve_overhead.py --against main     # this tree and main, interleaved
    python benchmarks/serve_overhead.py --asyncio-h11      # also on asyncio and h11
    python benchmarks/serve_overhead.py --callgrind --against main   # instruction counts
    python benchmarks/serve_overhead.py --no-floor         # without the floor rows

It starts, on 127.0.0.1, the fake OpenAI-compatible completions backend of the serve
tests (``tests/serve/servers.py``, replaying a Granite 3.3 answer) and one
``python -m granite_formatters serve`` in front of it per tree measured: this tree, and
each ``--against`` commit (unpacked with ``git archive``, its ``core/src`` and
``plugins/*/src`` first on the proxy's ``PYTHONPATH``). The client (this process, httpx,
one connection kept alive per server) then times, in rounds, each tree in turn (the
order rotates every round, so a slow spell of a shared host falls on all of them):

* per request: a short answer (about 30 events) fetched from the backend directly (the
  ``/v1/completions`` request the proxy itself makes: streamed and read to the end, for
  the streaming rows; not streamed, one JSON body, for the non-streaming rows, which is
  what a client that does not stream would ask the backend for) against the same answer
  through the proxy's ``/v1/chat/completions``, non-streaming and streaming, with
  ``max_tokens`` and without it (the proxy then works out what is left of the model's
  context);
* the floor (short non-streaming rows only): the least proxy a user could run instead
  on the same stack, side by side with serve: a bare ASGI callable on uvicorn (uvloop
  and httptools where installed, as for serve) and a bare ``aiohttp.web`` handler, each
  reading the request, formatting its prompt with the library, sending the generation
  request (``stream: false``) through one kept-alive ``aiohttp.ClientSession`` and
  answering the backend's JSON body unchanged: no checks, no parse, no log;
* per streamed chunk: a long answer (``--chunks`` events of 4 characters, with reasoning)
  streamed from the backend directly against streamed through the proxy, read to
  ``[DONE]``; the overhead per chunk is the difference divided by the number of events.

The figures reported are the medians over all rounds, the difference of the fastest
calls (through the proxy less directly: nearer what an idle host would show), and each
proxy process's CPU time per request or per chunk (from ``/proc/PID/task/*/schedstat``,
Linux only), which the load of other jobs blurs far less than wall-clock time. Needs the
``serve`` extra and the Granite 3.3 plugin.

With ``--callgrind`` each proxy runs under ``valgrind --tool=callgrind`` (instrumentation
off at the start) and, instead of the timed rounds, each short-request row is counted
exactly, whatever the load: 20 unmeasured requests, then the user-space instructions of
the next 100 (``callgrind_control`` zeroes, turns instrumentation on and off, dumps).
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from compare import _sources, _unpack

ROOT = Path(__file__).resolve().parent.parent
MODEL = "granite-3.3-8b-instruct"
SHORT = (
    "Hello! Zürich is usually mild in spring, around 15 °C. I hope that helps you plan your trip."
)
REASONING = "The user asks about Granite. I should answer from what I know, briefly. " * 3
#: The fake model's context: far more than any prompt here, as with a real model.
CONTEXT = 1 << 20


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def run_backend(port: int, scripts_file: str) -> None:
    """The fake backend process: serve the scripts (prompt -> output) in ``scripts_file``."""
    sys.path.insert(0, str(ROOT / "tests"))
    import uvicorn
    from serve.servers import FakeBackend, Script

    fake = FakeBackend(max_model_len=CONTEXT)
    for prompt, output in json.loads(Path(scripts_file).read_text(encoding="utf-8")).items():
        fake.script(prompt, Script(output, cut="pieces"))
    # Plain asyncio and h11 whatever is installed, so "directly" is one fixed baseline.
    uvicorn.run(
        fake.app, host="127.0.0.1", port=port, log_level="warning", access_log=False,
        loop="asyncio", http="h11",
    )  # fmt: skip


#: The labels of the floor proxies (short non-streaming rows only).
FLOOR_ASGI = "floor: bare ASGI on uvicorn"
FLOOR_AIOHTTP = "floor: bare aiohttp.web"
FLOORS = (FLOOR_ASGI, FLOOR_AIOHTTP)


class _Floor:
    """The least proxy: read the chat request, format its prompt (the model's formatter
    looked up once per name, as serve's built registry answers it), forward it (not
    streamed) through one kept-alive aiohttp session, answer the backend's body as is."""

    def __init__(self, backend: str) -> None:
        self.url = backend.rstrip("/") + "/completions"
        self.session: Any = None
        self.formatters: dict[str, Any] = {}

    async def forward(self, raw: bytes) -> tuple[int, bytes]:
        import aiohttp

        from granite_formatters import get_formatter

        body = json.loads(raw)
        formatter = self.formatters.get(body["model"])
        if formatter is None:
            formatter = self.formatters[body["model"]] = get_formatter(body["model"])
        prompt = formatter.format(body)
        generation = {"model": body["model"], "prompt": prompt, "stream": False,
                      "max_tokens": body.get("max_tokens") or 4096}  # fmt: skip
        if self.session is None:
            self.session = aiohttp.ClientSession()
        async with self.session.post(
            self.url, data=json.dumps(generation).encode(), headers=_JSON
        ) as response:
            return response.status, await response.read()

    async def close(self, *_: object) -> None:
        if self.session is not None:
            await self.session.close()


_JSON = {"content-type": "application/json"}


def run_floor_proxy(kind: str, port: int, backend: str) -> int:
    """Run the floor proxy ``kind`` (``asgi``: on uvicorn; ``aiohttp``: aiohttp.web)."""
    floor = _Floor(backend)
    if kind == "aiohttp":
        import uvloop
        from aiohttp import web

        async def chat(request: web.Request) -> web.Response:
            status, data = await floor.forward(await request.read())
            return web.Response(status=status, body=data, content_type="application/json")

        async def health(request: web.Request) -> web.Response:
            return web.json_response({"status": "ok"})

        web_app = web.Application()
        web_app.router.add_post("/v1/chat/completions", chat)
        web_app.router.add_get("/health", health)
        web_app.on_cleanup.append(floor.close)
        web.run_app(web_app, host="127.0.0.1", port=port, print=None,
                    access_log=None, loop=uvloop.new_event_loop())  # fmt: skip
        return 0
    import uvicorn

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await floor.close()
            await send({"type": "lifespan.shutdown.complete"})
            return
        status, data = 200, b'{"status":"ok"}'
        if scope["path"] == "/v1/chat/completions":
            parts, more = [], True
            while more:
                message = await receive()
                parts.append(message.get("body", b""))
                more = message.get("more_body", False)
            status, data = await floor.forward(b"".join(parts))
        headers = [(b"content-type", b"application/json"),
                   (b"content-length", str(len(data)).encode())]  # fmt: skip
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": data})

    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", access_log=False)
    return 0


#: The label of this tree's proxy with httpx's own transport (httpcore, h11) on the hop.
HTTPX_HOP = "this tree, httpx transport"


def run_httpx_proxy(serve_args: list[str]) -> int:
    """``granite-format serve`` with httpx's own transport (httpcore, h11) on the backend
    hop, the generation request sent straight to it as with aiohttp's (the candidate the
    hop's client was chosen against; ``docs/performance.md``)."""
    import httpx

    from granite_formatters._serve import aiohttp_transport, app

    class HttpxHop(aiohttp_transport.BackendClient):
        def __init__(self, timeout: httpx.Timeout, max_connections: int = 512) -> None:
            limits = httpx.Limits(max_connections=max_connections, max_keepalive_connections=128)
            self.hop = httpx.AsyncHTTPTransport(limits=limits, trust_env=False)  # type: ignore[assignment]
            httpx.AsyncClient.__init__(self, transport=self.hop, timeout=timeout, trust_env=False)

    app.BackendClient = HttpxHop  # type: ignore[misc]
    from granite_formatters._cli import main as cli_main

    return cli_main(["serve", *serve_args])


#: The label of this tree's proxy forced onto asyncio and h11 (what uvicorn runs on
#: without uvloop and httptools, which the ``serve`` extra installs).
ASYNCIO_H11 = "this tree, asyncio and h11"


def run_asyncio_h11_proxy(serve_args: list[str]) -> int:
    """``granite-format serve`` with uvicorn told to use asyncio's event loop and h11."""
    import uvicorn

    run = uvicorn.run

    def plain_run(*args: object, **options: object) -> None:
        run(*args, **{**options, "loop": "asyncio", "http": "h11"})  # type: ignore[arg-type]

    uvicorn.run = plain_run
    from granite_formatters._cli import main as cli_main

    return cli_main(["serve", *serve_args])


def server_impls() -> str:
    """The event loop and HTTP parser uvicorn picks for the proxy (``loop="auto"``,
    ``http="auto"``: uvloop and httptools where installed, as the ``serve`` extra installs them)."""
    import importlib.util

    loop = "uvloop" if importlib.util.find_spec("uvloop") else "asyncio"
    http = "httptools" if importlib.util.find_spec("httptools") else "h11"
    return f"{loop} event loop, {http} HTTP parser"


def wait_for(url: str, process: subprocess.Popen[bytes]) -> None:
    import httpx

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"a server exited with status {process.returncode}")
        try:
            httpx.get(url, timeout=1)
            return
        except httpx.TransportError:
            time.sleep(0.1)
    raise SystemExit(f"{url} did not come up")


def cpu_seconds(pid: int) -> float | None:
    """The CPU time process ``pid`` has used (all its threads), or ``None`` off Linux: the
    scheduler's nanosecond count where the kernel keeps it, else user + system time in
    clock ticks (10 ms each, coarse for a few requests)."""
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
        return sum(int((task / "schedstat").read_text().split()[0]) for task in tasks) / 1e9
    except (OSError, ValueError, IndexError):
        pass
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Samples:
    """Wall-clock seconds per call and the CPU seconds a process used, per row."""

    def __init__(self) -> None:
        self.wall: dict[str, list[float]] = {}
        self.cpu: dict[str, list[float]] = {}
        self.counts: dict[str, float] = {}

    def time(
        self, row: str, call: Callable[[], None], repeats: int, pid: int | None = None
    ) -> None:
        """``repeats`` timed calls of ``call`` (after one untimed call)."""
        call()
        before = cpu_seconds(pid) if pid is not None else None
        wall = self.wall.setdefault(row, [])
        for _ in range(repeats):
            start = time.perf_counter()
            call()
            wall.append(time.perf_counter() - start)
        after = cpu_seconds(pid) if pid is not None else None
        if before is not None and after is not None:
            self.cpu.setdefault(row, []).append((after - before) / repeats)

    def median(self, row: str) -> float:
        return statistics.median(self.wall[row])

    def fastest(self, row: str) -> float:
        return min(self.wall[row])

    def cpu_mean(self, row: str) -> float | None:
        values = self.cpu.get(row)
        return statistics.fmean(values) if values else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="few repeats, short stream")
    parser.add_argument("--chunks", type=int, default=None, help="events in the long stream")
    parser.add_argument("--rounds", type=int, default=None, help="rounds (default 5, quick 2)")
    parser.add_argument(
        "--against",
        action="append",
        default=[],
        metavar="COMMIT",
        help="also measure the proxy as at COMMIT (repeatable)",
    )
    parser.add_argument(
        "--httpx-hop",
        action="store_true",
        help="also measure this tree with httpx's own transport on the backend hop",
    )
    parser.add_argument(
        "--asyncio-h11",
        action="store_true",
        help="also measure this tree with uvicorn on asyncio and h11",
    )
    parser.add_argument("--no-floor", action="store_true", help="leave out the floor proxies' rows")
    parser.add_argument(
        "--callgrind",
        action="store_true",
        help="count each proxy's instructions per short request (valgrind) instead of timing",
    )
    parser.add_argument(
        "--run-backend", nargs=2, metavar=("PORT", "SCRIPTS"), help=argparse.SUPPRESS
    )
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--run-httpx-proxy"]:  # (its arguments are serve's)
        return run_httpx_proxy(argv[1:])
    if argv[:1] == ["--run-asyncio-h11-proxy"]:
        return run_asyncio_h11_proxy(argv[1:])
    if argv[:1] == ["--run-floor-proxy"]:  # KIND PORT BACKEND
        return run_floor_proxy(argv[1], int(argv[2]), argv[3])
    args = parser.parse_args(argv)
    if args.run_backend:
        run_backend(int(args.run_backend[0]), args.run_backend[1])
        return 0
    with tempfile.TemporaryDirectory() as scratch:
        trees = {"this tree": ""}
        if args.httpx_hop:
            trees[HTTPX_HOP] = ""
        if args.asyncio_h11:
            trees[ASYNCIO_H11] = ""
        for commit in args.against:
            trees[commit] = _sources(_unpack(commit, Path(scratch)))
        if not args.no_floor:
            trees.update(dict.fromkeys(FLOORS, ""))
        return measure(args, trees)


def measure(args: argparse.Namespace, trees: dict[str, str]) -> int:
    """Run the servers and the rounds; ``trees`` maps each proxy's label to the source
    folders put first on its ``PYTHONPATH`` (``""``: none, this tree as installed)."""
    import httpx

    from granite_formatters import get_formatter

    rounds = args.rounds or (2 if args.quick else 5)
    short_repeats = 10 if args.quick else 40
    long_repeats = 3 if args.quick else 4
    chunks = args.chunks or (250 if args.quick else 2000)
    long_answer = ("Granite answers in pieces. " * (chunks // 6 + 1))[
        : 4 * chunks - len(REASONING) - 30
    ]
    long_output = f"<think>{REASONING}</think><response>{long_answer}</response>"
    formatter = get_formatter(MODEL)
    short_request = {"messages": [{"role": "user", "content": "Weather in Zürich?"}]}
    long_request = {
        "messages": [{"role": "user", "content": "Tell me about Granite at length."}],
        "chat_template_kwargs": {"thinking": True},
    }
    short_prompt = formatter.format(short_request)
    long_prompt = formatter.format(long_request)
    events_long = len(range(0, len(long_output), 4))
    events_short = len(range(0, len(SHORT), 4))
    # Both sides name a token limit where the row says so (vLLM's default is 16 tokens;
    # without one the proxy works out what is left of the context).
    limit = 2 * events_long + 100

    scratch_dir = tempfile.mkdtemp()
    scripts = ROOT / ".serve_overhead_scripts.json"
    scripts.write_text(
        json.dumps({short_prompt: SHORT, long_prompt: long_output}), encoding="utf-8"
    )
    backend_port = free_port()
    processes = [
        subprocess.Popen(
            [sys.executable, __file__, "--run-backend", str(backend_port), str(scripts)]
        )
    ]
    proxies: dict[str, tuple[subprocess.Popen[bytes], int]] = {}
    for label, sources in trees.items():
        port = free_port()
        path = os.pathsep.join([p for p in (sources, *sys.path) if p])
        serve_args = ["--port", str(port), "--backend", f"http://127.0.0.1:{backend_port}/v1",
                      "--log-level", "warning"]  # fmt: skip
        if label == HTTPX_HOP:
            command = [sys.executable, __file__, "--run-httpx-proxy", *serve_args]
        elif label == ASYNCIO_H11:
            command = [sys.executable, __file__, "--run-asyncio-h11-proxy", *serve_args]
        elif label in FLOORS:
            kind = "asgi" if label == FLOOR_ASGI else "aiohttp"
            command = [sys.executable, __file__, "--run-floor-proxy", kind, str(port),
                       f"http://127.0.0.1:{backend_port}/v1"]  # fmt: skip
        else:
            command = [sys.executable, "-m", "granite_formatters", "serve", *serve_args]
        if args.callgrind:
            out = Path(scratch_dir, f"callgrind.{len(proxies)}.out")
            command = ["valgrind", "--tool=callgrind", "--instr-atstart=no",
                       f"--callgrind-out-file={out}", *command]  # fmt: skip
        proxy = subprocess.Popen(command, env={**os.environ, "PYTHONPATH": path})
        processes.append(proxy)
        proxies[label] = (proxy, port)
    samples = Samples()
    try:
        for proxy, port in proxies.values():
            wait_for(f"http://127.0.0.1:{port}/health", proxy)
        backend_url = f"http://127.0.0.1:{backend_port}/v1/completions"
        clients = {label: httpx.Client(timeout=60) for label in [*proxies, "direct"]}

        def direct(prompt: str, stream: bool = True) -> None:
            body = {"model": MODEL, "prompt": prompt, "stream": stream, "max_tokens": limit}
            with clients["direct"].stream("POST", backend_url, json=body) as response:
                for _ in response.iter_lines():
                    pass

        def proxied(label: str, request: dict[str, object], stream: bool, limited: bool) -> None:
            url = f"http://127.0.0.1:{proxies[label][1]}/v1/chat/completions"
            body = {"model": MODEL, **request, "stream": stream}
            if limited:
                body["max_tokens"] = limit
            with clients[label].stream("POST", url, json=body) as response:
                assert response.status_code == 200, response.read()
                for _ in response.iter_lines():
                    pass

        if not args.quick:
            time.sleep(1)  # let the servers settle
        labels = list(proxies)
        if args.callgrind:
            for label, (proxy, _) in proxies.items():
                for stream in (False,) if label in FLOORS else (False, True):
                    for limited in (True, False):
                        call = functools.partial(proxied, label, short_request, stream, limited)
                        row = f"{label} short {stream} {limited}"
                        samples.counts[row] = instructions(proxy.pid, call, scratch_dir)
            rounds = 0
        for number in range(rounds):
            samples.time("direct short", lambda: direct(short_prompt), short_repeats)
            whole = functools.partial(direct, short_prompt, False)
            samples.time("direct short whole", whole, short_repeats)
            samples.time("direct long", lambda: direct(long_prompt), long_repeats)
            shift = number % len(labels)
            for label in labels[shift:] + labels[:shift]:
                pid = proxies[label][0].pid
                for stream in (False,) if label in FLOORS else (False, True):
                    for limited in (True, False):
                        call = functools.partial(proxied, label, short_request, stream, limited)
                        samples.time(f"{label} short {stream} {limited}", call, short_repeats, pid)
                if label in FLOORS:
                    continue
                for limited in (True, False):
                    call = functools.partial(proxied, label, long_request, True, limited)
                    samples.time(f"{label} long {limited}", call, long_repeats, pid)
        for client in clients.values():
            client.close()
    finally:
        for process in processes:
            process.terminate()
            process.wait(30)
        scripts.unlink(missing_ok=True)
        shutil.rmtree(scratch_dir, ignore_errors=True)
    if args.callgrind:
        report_counts(samples, list(proxies), events_short)
    else:
        report(samples, list(proxies), events_short, events_long, rounds)
    return 0


def instructions(pid: int, call: Callable[[], None], scratch_dir: str) -> float:
    """The user-space instructions process ``pid`` (under callgrind) runs per ``call``:
    20 calls unmeasured, then 100 counted."""
    for _ in range(20):
        call()
    control = ["callgrind_control"]
    subprocess.run([*control, "--zero", str(pid)], check=True, capture_output=True)
    subprocess.run([*control, "--instr=on", str(pid)], check=True, capture_output=True)
    for _ in range(100):
        call()
    subprocess.run([*control, "--instr=off", str(pid)], check=True, capture_output=True)
    before = set(Path(scratch_dir).iterdir())
    subprocess.run([*control, "--dump", str(pid)], check=True, capture_output=True)
    (dump,) = set(Path(scratch_dir).iterdir()) - before
    for line in dump.read_text(encoding="utf-8", errors="replace").splitlines():
        if line.startswith("totals:"):
            return int(line.split()[1]) / 100
    raise SystemExit(f"no instruction total in {dump}")


def report_counts(samples: Samples, labels: list[str], events_short: int) -> None:
    print(f"## granite-format serve: instructions per short request ({events_short} events)\n")
    print("| proxy | non-streaming, with / without max_tokens | streaming, with / without |")
    print("|---|---:|---:|")
    for label in labels:
        cells = [
            " / ".join(
                f"{samples.counts[f'{label} short {stream} {limited}'] / 1e6:.3f} M"
                for limited in (True, False)
            )
            if f"{label} short {stream} True" in samples.counts
            else "-"
            for stream in (False, True)
        ]
        print(f"| {label} | {cells[0]} | {cells[1]} |")
    print("\ncallgrind, user space, 100 requests after 20 unmeasured ones per row")


def report(
    samples: Samples, labels: list[str], events_short: int, events_long: int, rounds: int
) -> None:
    ms = 1000.0
    d_long, f_long = samples.median("direct long"), samples.fastest("direct long")
    #: The direct request each kind of client would make: streamed, or the whole answer.
    direct_short = {
        stream: (samples.median(row), samples.fastest(row))
        for stream, row in ((True, "direct short"), (False, "direct short whole"))
    }
    print(f"## granite-format serve overhead (loopback, fake backend, {MODEL})\n")
    print(f"Backend directly: short answer ({events_short} events) "
          f"{direct_short[True][0] * ms:.2f} ms streamed, {direct_short[False][0] * ms:.2f} ms "
          f"not streamed (one body); long stream ({events_long} events) {d_long * ms:.2f} ms, "
          f"{d_long / events_long * 1e6:.1f} µs per chunk.\n")  # fmt: skip
    print("| proxy | measurement | through the proxy | added | added (fastest) | proxy CPU |")
    print("|---|---|---:|---:|---:|---:|")
    for label in labels:
        for stream in (False,) if label in FLOORS else (False, True):
            for limited in (True, False):
                row = f"{label} short {stream} {limited}"
                wall, cpu = samples.median(row), samples.cpu_mean(row)
                d_short, f_short = direct_short[stream]
                fastest = samples.fastest(row) - f_short
                what = (
                    f"short answer, {'streaming' if stream else 'non-streaming'}, "
                    f"{'with' if limited else 'without'} max_tokens"
                )
                cpu_text = "-" if cpu is None else f"{cpu * ms:.2f} ms"
                print(f"| {label} | {what} | {wall * ms:.2f} ms | {(wall - d_short) * ms:.2f} ms | "
                      f"{fastest * ms:.2f} ms | {cpu_text} |")  # fmt: skip
        if label in FLOORS:
            continue
        for limited in (True, False):
            row = f"{label} long {limited}"
            wall, cpu = samples.median(row), samples.cpu_mean(row)
            fastest = (samples.fastest(row) - f_long) / events_long * 1e6
            what = f"per streamed chunk, {'with' if limited else 'without'} max_tokens"
            cpu_text = "-" if cpu is None else f"{cpu / events_long * 1e6:.1f} µs"
            print(f"| {label} | {what} | {wall / events_long * 1e6:.1f} µs | "
                  f"{(wall - d_long) / events_long * 1e6:.1f} µs | {fastest:.1f} µs | "
                  f"{cpu_text} |")  # fmt: skip
    short_n = len(samples.wall["direct short"])
    long_n = len(samples.wall["direct long"])
    print(f"\n{rounds} rounds; repeats: {short_n} (short), {long_n} (long) per row; "
          f"python {sys.version.split()[0]}, {os.cpu_count()} cores; "
          f"proxy on uvicorn with {server_impls()}")  # fmt: skip
    if hasattr(os, "getloadavg"):
        print("load average at the end: " + ", ".join(f"{x:.2f}" for x in os.getloadavg()))


if __name__ == "__main__":
    sys.exit(main())
