"""The native kernels' toolchain: finding and probing the C compiler, the
flags, building sources into shared libraries, and the glue to the disk
cache (:mod:`..kernel_cache`, which checks and publishes what is built).

Environment: ``CC`` names the compiler (default: sysconfig's, then
``cc``/``gcc`` on PATH); the cache lives in ``$FGRAPH_CACHE_DIR`` (default
``$XDG_CACHE_HOME/fgraph`` or ``~/.cache/fgraph``) under ``native/``, holding
at most ``$FGRAPH_NATIVE_CACHE_MB`` (default 256) megabytes.
"""
from __future__ import annotations

import ctypes
import hashlib
import os
import platform
import shlex
import shutil
import subprocess
import sysconfig
import tempfile
import threading
import time

from .. import kernel_cache

#: what happened, for tests and the benchmark
STATS = {"compiles": 0, "disk_loads": 0, "compile_s": 0.0, "runs": 0, "declined": 0, "reruns": 0, "errors": 0,
         "evicted_bytes": 0, "rejected": 0, "loops": 0, "steps": 0, "shared_steps": 0}
# loops: while_loops and scans run whole in C (whole_loop.py); steps: eager steps (whole_step.py), of them
# shared_steps run by several threads (graph_threads.py);
# rejected: cached libraries not loaded (no or another digest)
#: the last compiler error output or exception text (for debugging)
LAST_ERROR: list = []
# ---------------------------------------------------------------- compiler (the disk cache: kernel_cache.py)

BASE_FLAGS = ["-O3", "-fPIC", "-shared", "-fno-math-errno", "-ffp-contract=off", "-fwrapv"]
#: tried in order: the first set that builds a probe is used (-fopenmp-simd:
#: the ``omp simd`` pragmas only, no OpenMP runtime)
OPTIONAL_FLAGS = [["-march=native", "-fopenmp-simd"], ["-fopenmp-simd"], ["-march=native"], []]

_toolchain_lock = threading.Lock()
_toolchain: dict = {}


def find_compiler() -> list[str] | None:
    """The C compiler command: $CC, sysconfig's CC, then cc/gcc on PATH."""
    for cand in (os.environ.get("CC"), sysconfig.get_config_var("CC"), "cc", "gcc"):
        if cand:
            cmd = shlex.split(cand)
            if cmd and shutil.which(cmd[0]):
                return cmd
    return None


cache_dir = kernel_cache.cache_dir
cache_limit_bytes = kernel_cache.cache_limit_bytes


def trim_cache(d: str | None = None, limit: int | None = None, keep=()) -> int:
    """Remove the kernels used least recently until the cache holds at most
    ``limit`` bytes (default :func:`cache_limit_bytes`; then 3/4 of it, so
    trimming is rare), never those named in ``keep`` (just built); returns
    the bytes freed.  See :func:`kernel_cache.trim`."""
    freed = kernel_cache.trim(cache_dir() if d is None else d, cache_limit_bytes() if limit is None else limit, keep)
    STATS["evicted_bytes"] += freed
    return freed


def _cpu_id() -> str:
    """What -march=native depends on: a cached library must not move to another CPU."""
    try:
        with open("/proc/cpuinfo") as f:
            info = [line for line in f if line.startswith(("flags", "model name"))][:2]
    except OSError:
        info = []
    return platform.machine() + platform.processor() + "".join(info)


def toolchain() -> dict | None:
    """{cmd, flags, ident} for a working compiler, or None (probed once)."""
    with _toolchain_lock:
        if "value" in _toolchain:
            return _toolchain["value"]
        value = None
        cmd = find_compiler()
        if cmd is not None:
            try:
                version = subprocess.run(cmd + ["--version"], capture_output=True, text=True,
                                         timeout=30).stdout.splitlines()[:1]
            except (OSError, subprocess.SubprocessError):
                version = None
            if version is not None:
                probe = ("#include <math.h>\n#include <fenv.h>\n"
                         "int f(double x) { return (int)sqrt(x) + fetestexcept(FE_INVALID); }\n")
                with tempfile.TemporaryDirectory() as d:
                    for extra in OPTIONAL_FLAGS:
                        if _compile(cmd, BASE_FLAGS + extra, probe, d, os.path.join(d, "probe.so")):
                            value = {"cmd": cmd, "flags": BASE_FLAGS + extra,
                                     "ident": " ".join(cmd + version) + _cpu_id()}
                            break
        _toolchain["value"] = value
        return value


def _compile(cmd, flags, source, workdir, target) -> bool:
    src = os.path.join(workdir, os.path.basename(target) + ".c")
    with open(os.open(src, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:
        f.write(source)
    try:
        r = subprocess.run(cmd + flags + [src, "-o", target, "-lm"], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.SubprocessError) as e:
        LAST_ERROR[:] = [repr(e)]
        return False
    if r.returncode:
        LAST_ERROR[:] = [r.stderr[-4000:]]
    return r.returncode == 0 and os.path.exists(target)


def symbol(source: str, tc: dict) -> str:
    """The kernel's name: a digest of its source and of how it is built."""
    return "fg_" + hashlib.sha256("\0".join([source, tc["ident"]] + tc["flags"]).encode()).hexdigest()[:32]


def build(sources: list[str]) -> list:
    """A (library, function name) for each kernel source (its name written
    ``FG_NAME``), or None where that fails.

    Each kernel has its own file in the disk cache, named by its symbol: a
    kernel built before (same source, compiler, flags and CPU) is loaded
    once :mod:`kernel_cache` has checked its file and digest; the others
    (missing, damaged, or not built by fgraph) are compiled together in one
    compiler run (one library, hard-linked under each name) and published
    atomically."""
    tc = toolchain()
    if tc is None:
        return [None] * len(sources)
    names = [symbol(src, tc) for src in sources]
    d = kernel_cache.open_folder()
    found: dict = {}
    todo: dict = {}
    for src, name in zip(sources, names):
        if name in found or name in todo:
            continue
        if d is not None:
            try:
                path, why = kernel_cache.verified(d, name)
            except kernel_cache.Untrusted as e:
                kernel_cache.distrust(d, str(e))
                d, path, why = None, None, "untrusted"
            if path is not None:
                try:
                    found[name] = ctypes.CDLL(path)
                    STATS["disk_loads"] += 1
                    _touch(path)  # its time is its last use: trimming removes the stalest
                    continue
                except OSError:
                    pass  # trimmed away by another process meanwhile: build it again
            elif why != "missing":
                STATS["rejected"] += 1
        todo[name] = src
    if todo:
        found.update(_build_new(tc, todo, d))
        if d is not None:
            trim_cache(d, keep=todo)
    return [(found[n], n) if n in found else None for n in names]


def _touch(path: str) -> None:
    try:
        os.utime(path)
    except OSError:  # a read-only cache: its order stays the build order
        pass


def _build_new(tc: dict, todo: dict, d: str | None) -> dict:
    """Compile ``todo`` ({name: source}) into one library, published in the
    cache folder ``d`` unless it is None (kept nowhere then)."""
    t0 = time.perf_counter()
    work = None
    if d is not None:
        try:
            work = kernel_cache.new_build_folder(d)
        except OSError:  # a read-only cache: build privately, keep nothing
            d = None
    if work is None:
        work = kernel_cache.new_build_folder(None)
    try:
        lib_path = os.path.join(work, "kernels.so")
        source = "\n".join(src.replace("FG_NAME", name) for name, src in todo.items())
        if not _compile(tc["cmd"], tc["flags"], source, work, lib_path):
            STATS["errors"] += 1
            return {}
        STATS["compiles"] += len(todo)
        STATS["compile_s"] += time.perf_counter() - t0
        if d is not None:
            try:
                kernel_cache.publish(d, lib_path, list(todo))
            except OSError as e:  # a full disk, say: this process still has its kernels
                LAST_ERROR[:] = [repr(e)]
            except kernel_cache.Untrusted as e:  # its manifest changed hands meanwhile
                kernel_cache.distrust(d, str(e))
        # loaded from the private build folder: exactly the bytes just built,
        # whatever happens to the published names; it stays mapped once removed
        lib = ctypes.CDLL(lib_path)
        return {name: lib for name in todo}
    finally:
        shutil.rmtree(work, ignore_errors=True)


def known_missing() -> bool:
    """Whether the compiler was probed and none works (without probing)."""
    return "value" in _toolchain and _toolchain["value"] is None


def forget() -> None:
    """Forget the probed compiler (it is probed again when next needed)."""
    with _toolchain_lock:
        _toolchain.clear()


def _after_fork():
    # a thread of the parent may have held the lock: the child starts with its own
    global _toolchain_lock
    _toolchain_lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)
