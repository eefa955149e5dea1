#!/usr/bin/env python3
"""What ``granite-format serve`` adds per request and per streamed chunk (loopback, fake backend).

    python benchmarks/serve_overhead.py            # full run (about a minute)
    python benchmarks/serve_overhead.py --quick    # a few seconds

It starts two processes on 127.0.0.1: the fake OpenAI-compatible completions backend of
the serve tests (``tests/serve/servers.py``, replaying a Granite 3.3 answer) and
``python -m granite_formatters serve`` in front of it. The client (this process, httpx,
one connection kept alive) then times, sequentially:

* per request: a short answer (about 30 events) fetched from the backend directly (the
  streaming ``/v1/completions`` request the proxy itself makes, read to the end) against
  the same answer through the proxy's non-streaming ``/v1/chat/completions``;
* per streamed chunk: a long answer (``--chunks`` events of 4 characters, with reasoning)
  streamed from the backend directly against streamed through the proxy, read to
  ``[DONE]``; the overhead per chunk is the difference divided by the number of events.

The figure reported is the median over the repeats, with the proxy process's CPU time
per request (from ``/proc/PID/stat``, Linux only), which the load of other jobs does not
blur. Needs the ``serve`` extra and the
Granite 3.3 plugin.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODEL = "granite-3.3-8b-instruct"
SHORT = (
    "Hello! Zürich is usually mild in spring, around 15 °C. I hope that helps you plan your trip."
)
REASONING = "The user asks about Granite. I should answer from what I know, briefly. " * 3


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def run_backend(port: int, scripts_file: str) -> None:
    """The fake backend process: serve the scripts (prompt -> output) in ``scripts_file``."""
    sys.path.insert(0, str(ROOT / "tests"))
    import uvicorn
    from serve.servers import FakeBackend, Script

    fake = FakeBackend(max_model_len=1 << 20)
    for prompt, output in json.loads(Path(scripts_file).read_text(encoding="utf-8")).items():
        fake.script(prompt, Script(output, cut="pieces"))
    # Plain asyncio and h11 whatever is installed, so "directly" is one fixed baseline.
    uvicorn.run(
        fake.app, host="127.0.0.1", port=port, log_level="warning", access_log=False,
        loop="asyncio", http="h11",
    )  # fmt: skip


def server_impls() -> str:
    """The event loop and HTTP parser uvicorn picks for the proxy (``loop="auto"``,
    ``http="auto"``: uvloop and httptools where installed, the ``serve-fast`` extra)."""
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
    """The CPU time (user + system) process ``pid`` has used, or ``None`` off Linux."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def timed(fn: object, repeats: int, pid: int | None = None) -> tuple[float, float | None]:
    """Median seconds per call of ``fn`` over ``repeats`` calls (after 3 warm-up calls), and
    the mean CPU seconds process ``pid`` used per call (wall clock is noisy on a loaded
    machine; a server's CPU time is not)."""
    call = fn  # type: ignore[assignment]
    for _ in range(3):
        call()  # type: ignore[operator]
    samples = []
    cpu_before = cpu_seconds(pid) if pid is not None else None
    for _ in range(repeats):
        start = time.perf_counter()
        call()  # type: ignore[operator]
        samples.append(time.perf_counter() - start)
    cpu_after = cpu_seconds(pid) if pid is not None else None
    cpu = None
    if cpu_before is not None and cpu_after is not None:
        cpu = (cpu_after - cpu_before) / repeats
    return statistics.median(samples), cpu


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="few repeats, short stream")
    parser.add_argument("--chunks", type=int, default=None, help="events in the long stream")
    parser.add_argument(
        "--run-backend", nargs=2, metavar=("PORT", "SCRIPTS"), help=argparse.SUPPRESS
    )
    args = parser.parse_args(argv)
    if args.run_backend:
        run_backend(int(args.run_backend[0]), args.run_backend[1])
        return 0

    import httpx

    from granite_formatters import get_formatter

    repeats = 20 if args.quick else 200
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

    scripts = ROOT / ".serve_overhead_scripts.json"
    scripts.write_text(
        json.dumps({short_prompt: SHORT, long_prompt: long_output}), encoding="utf-8"
    )
    backend_port, proxy_port = free_port(), free_port()
    backend = subprocess.Popen(
        [sys.executable, __file__, "--run-backend", str(backend_port), str(scripts)]
    )
    proxy = subprocess.Popen(
        [sys.executable, "-m", "granite_formatters", "serve", "--port", str(proxy_port),
         "--backend", f"http://127.0.0.1:{backend_port}/v1", "--log-level", "warning"],
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )  # fmt: skip
    try:
        wait_for(f"http://127.0.0.1:{proxy_port}/health", proxy)
        backend_url = f"http://127.0.0.1:{backend_port}/v1/completions"
        proxy_url = f"http://127.0.0.1:{proxy_port}/v1/chat/completions"
        with httpx.Client(timeout=60) as client:
            # Both sides name a token limit (vLLM's default is 16 tokens; without one the
            # proxy would first ask the backend for the context length and prompt size).
            limit = 2 * events_long + 100

            def direct(prompt: str) -> None:
                body = {"model": MODEL, "prompt": prompt, "stream": True, "max_tokens": limit}
                with client.stream("POST", backend_url, json=body) as response:
                    for _ in response.iter_lines():
                        pass

            def proxied(request: dict[str, object], stream: bool) -> None:
                body = {"model": MODEL, **request, "stream": stream, "max_tokens": limit}
                with client.stream("POST", proxy_url, json=body) as response:
                    assert response.status_code == 200, response.read()
                    for _ in response.iter_lines():
                        pass

            if not args.quick:
                time.sleep(1)  # let both servers settle
            d_req, _ = timed(lambda: direct(short_prompt), repeats)
            p_req, c_req = timed(lambda: proxied(short_request, False), repeats, proxy.pid)
            p_req_stream, c_req_stream = timed(
                lambda: proxied(short_request, True), repeats, proxy.pid
            )
            long_repeats = max(5, repeats // 10)
            d_long, _ = timed(lambda: direct(long_prompt), long_repeats)
            p_long, c_long = timed(lambda: proxied(long_request, True), long_repeats, proxy.pid)
    finally:
        for process in (proxy, backend):
            process.terminate()
            process.wait(30)
        scripts.unlink(missing_ok=True)

    ms = 1000.0
    per_chunk_us = (p_long - d_long) / events_long * 1e6
    print(f"## granite-format serve overhead (loopback, fake backend, {MODEL})\n")
    print("| measurement | backend directly | through the proxy | added | ratio | proxy CPU |")
    print("|---|---:|---:|---:|---:|---:|")
    rows = [
        (f"short answer ({events_short} events), non-streaming", d_req, p_req, c_req),
        (f"short answer ({events_short} events), streaming", d_req, p_req_stream, c_req_stream),
        (f"long stream ({events_long} events)", d_long, p_long, c_long),
    ]
    for label, direct_s, proxy_s, cpu_s in rows:
        cpu = "-" if cpu_s is None else f"{cpu_s * ms:.2f} ms"
        print(
            f"| {label} | {direct_s * ms:.2f} ms | {proxy_s * ms:.2f} ms | "
            f"{(proxy_s - direct_s) * ms:.2f} ms | {proxy_s / direct_s:.2f}x | {cpu} |"
        )
    direct_us = d_long / events_long * 1e6
    proxied_us = p_long / events_long * 1e6
    print(
        f"\nper streamed chunk: {per_chunk_us:.1f} µs added "
        f"({direct_us:.1f} µs direct, {proxied_us:.1f} µs proxied)"
    )
    print(f"repeats: {repeats} (short), {long_repeats} (long); python {sys.version.split()[0]}, "
          f"{os.cpu_count()} cores; proxy on uvicorn with {server_impls()}")  # fmt: skip
    if hasattr(os, "getloadavg"):
        print("load average at the end: " + ", ".join(f"{x:.2f}" for x in os.getloadavg()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
