"""Build llama.cpp's ``llama-server`` for CPU, once per version, and print its path.

The llama.cpp sources come from the ``llama-cpp-python`` sdist on PyPI (it vendors
llama.cpp under ``vendor/llama.cpp``), fetched with pip; CMake and a C++ compiler
(Debian's ``cmake`` and ``build-essential``) build the ``llama-server`` target with
nothing downloaded at build time (no curl, no OpenSSL, no prebuilt web UI). The
binary is cached under ``${XDG_CACHE_HOME:-~/.cache}/granite-formatters/llama-server/
<version>/llama-server`` and reused; a lock file lets a build started in the
background (``.ci/run``) and the test env that needs it wait for each other.

Standard library only, so that ``.ci/run`` can run it with any Python 3.10+:

    python3 tests/llamacpp/build_llama_server.py            # build or reuse; print the path
    python3 tests/llamacpp/build_llama_server.py --path     # print the path only
"""

from __future__ import annotations

import argparse
import fcntl
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

#: The llama-cpp-python release whose vendored llama.cpp is built (llama.cpp 0c1e570).
VERSION = "0.3.36"

#: CMake options: CPU only, static, the server alone, nothing fetched while building.
CMAKE_OPTIONS = (
    "-DCMAKE_BUILD_TYPE=Release",
    "-DBUILD_SHARED_LIBS=OFF",
    "-DLLAMA_CURL=OFF",
    "-DLLAMA_OPENSSL=OFF",
    "-DLLAMA_BUILD_TESTS=OFF",
    "-DLLAMA_BUILD_EXAMPLES=OFF",
    "-DLLAMA_BUILD_UI=OFF",
    "-DLLAMA_USE_PREBUILT_UI=OFF",
    "-DGGML_CCACHE=OFF",
)


def cache_dir(version: str = VERSION) -> Path:
    """The folder that holds the cached binary of one version."""
    root = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(root) / "granite-formatters" / "llama-server" / version


def binary_path(version: str = VERSION) -> Path:
    """Where the cached ``llama-server`` of one version lives (it may not exist yet)."""
    return cache_dir(version) / "llama-server"


def _run(command: list[str], cwd: Path, log: Path) -> None:
    with log.open("ab") as out:
        out.write(("\n$ " + " ".join(command) + "\n").encode())
        out.flush()
        done = subprocess.run(command, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, check=False)
    if done.returncode != 0:
        tail = log.read_text(errors="replace").splitlines()[-40:]
        raise SystemExit(
            f"build_llama_server: {command[0]} failed (exit {done.returncode}); "
            f"last lines of {log}:\n" + "\n".join(tail)
        )


def _sources(work: Path, log: Path, version: str) -> Path:
    """Fetch and unpack the sdist; return its vendored llama.cpp folder."""
    _run(
        [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
         "--no-binary", ":all:", f"llama-cpp-python=={version}", "-d", str(work)],
        work,
        log,
    )  # fmt: skip
    (sdist,) = work.glob("llama_cpp_python-*.tar.gz")
    with tarfile.open(sdist) as archive:
        if sys.version_info >= (3, 12):
            archive.extractall(work, filter="data")
        else:
            archive.extractall(work)  # the sdist comes from PyPI through pip
    (source,) = work.glob("llama_cpp_python-*/vendor/llama.cpp")
    return source


def build(version: str = VERSION, jobs: int = 2) -> Path:
    """Build ``llama-server`` unless a cached one exists; return its path."""
    target = binary_path(version)
    target.parent.mkdir(parents=True, exist_ok=True)
    with (target.parent / "build.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # a concurrent build finishes first
        if target.exists():
            return target
        for tool in ("cmake", "make", "c++"):
            if shutil.which(tool) is None:
                raise SystemExit(
                    f"build_llama_server: {tool!r} not found (Debian: apt-get install -y build-essential cmake)"
                )
        log = target.parent / "build.log"
        log.write_text("")
        started = time.monotonic()
        with tempfile.TemporaryDirectory(prefix="llama-server-build-") as tmp:
            work = Path(tmp)
            source = _sources(work, log, version)
            build_dir = work / "build"
            _run(["cmake", "-S", str(source), "-B", str(build_dir), *CMAKE_OPTIONS], work, log)
            _run(
                ["cmake", "--build", str(build_dir), "--target", "llama-server", "-j", str(jobs)],
                work,
                log,
            )
            built = build_dir / "bin" / "llama-server"
            partial = target.with_suffix(".partial")
            shutil.copy2(built, partial)
            partial.replace(target)  # atomic: a reader sees the whole binary or none
        minutes = (time.monotonic() - started) / 60
        with log.open("a") as out:
            out.write(f"\nbuilt {target} in {minutes:.1f} min\n")
        print(f"build_llama_server: built in {minutes:.1f} min", file=sys.stderr)
        return target


def main(argv: list[str] | None = None) -> int:
    """Command line: build or reuse, then print the binary's path."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--path", action="store_true", help="print the cached path only; build nothing"
    )
    parser.add_argument(
        "--jobs", type=int, default=os.cpu_count() or 2, help="parallel compile jobs"
    )
    parser.add_argument("--version", default=VERSION, help="llama-cpp-python version to build from")
    options = parser.parse_args(argv)
    path = binary_path(options.version) if options.path else build(options.version, options.jobs)
    print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
