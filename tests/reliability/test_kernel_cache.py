"""The native kernel cache loads only libraries fgraph built, intact, from
a folder only this user can write (issue 16).

Each case runs in its own cache folder ($XDG_CACHE_HOME under tmp_path)
with one tiny kernel: planted and symlinked libraries never run, files are
private whatever the umask, an untrusted folder is refused with one warning
(results stay right), damaged libraries are rebuilt instead of crashing
the process, and concurrent builds agree."""
import hashlib
import json
import os
import stat
import struct
import subprocess
import sys
import threading
import warnings

import numpy as np
import pytest

from fgraph.engines.numpy_kernels import kernel_cache, native

pytestmark = pytest.mark.skipif(native.toolchain() is None or not native.enabled(),
                                reason="no working C compiler (cc/gcc/$CC), or FGRAPH_NATIVE=0")

F8 = np.dtype("float64")
SIG = ((F8, "c"), (F8, "c"))
#: one tiny kernel per op: cheap to compile, distinct names
EXPRS = {op: ((op, (-1, -2), (), F8),) for op in ("add", "subtract", "multiply", "maximum")}
X = np.linspace(-4, 4, 64)
Y = np.linspace(3, -5, 64)
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def kernel_name(op="add") -> str:
    return native.symbol(native.Plan(EXPRS[op], SIG).source, native.toolchain())


def run_native(op="add", marker=None):
    """Run the kernel natively (from the cache or a private build) and check
    its result; first, that no planted library left its ``marker``."""
    out = np.empty_like(X)
    ran = native.run(EXPRS[op], [X, Y], out)
    assert marker is None or not marker.exists(), "the planted library was loaded"
    assert ran, native.LAST_ERROR
    np.testing.assert_array_equal(out, getattr(np, op)(X, Y))


def sha256(path) -> str:
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def manifest(folder) -> dict:
    with open(folder / "manifest.json") as f:
        return json.load(f)["sha256"]


def libraries(folder) -> list:
    return sorted(f for f in os.listdir(folder) if f.endswith(".so"))


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """A fresh cache folder (not made yet), and in-memory caches cleared around the test."""
    monkeypatch.delenv("FGRAPH_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    native.clear_memory_cache(compiler=False)
    yield tmp_path / "xdg" / "fgraph" / "native"
    monkeypatch.undo()
    native.clear_memory_cache(compiler=False)


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    """(library, marker): a shared library whose constructor creates ``marker`` when it is loaded."""
    d = tmp_path_factory.mktemp("planted")
    marker = d / "it-ran"
    src = d / "planted.c"
    src.write_text('#include <stdio.h>\n'
                   '__attribute__((constructor)) static void planted(void) {\n'
                   f'  FILE *f = fopen("{marker}", "w");\n'
                   '  if (f) { fputs("loaded", f); fclose(f); }\n'
                   '}\n')
    lib = d / "planted.so"
    subprocess.run(native.find_compiler() + ["-shared", "-fPIC", str(src), "-o", str(lib)], check=True)
    subprocess.run([sys.executable, "-c", f"import ctypes; ctypes.CDLL({str(lib)!r})"], check=True)
    assert marker.exists(), "loading the planted library leaves no marker: the tests below could not fail"
    marker.unlink()
    return lib, marker


def untrusted_warnings(caught) -> list:
    return [w for w in caught if issubclass(w.category, kernel_cache.UntrustedCacheWarning)]


# ---------------------------------------------------------------- planted libraries

def test_a_planted_library_is_not_loaded_but_rebuilt(cache, planted):
    lib, marker = planted
    cache.mkdir(parents=True, mode=0o700)
    target = cache / (kernel_name() + ".so")
    target.write_bytes(lib.read_bytes())  # a regular file of this user's, mode 0600: only the manifest tells
    target.chmod(0o600)
    rejected = native.STATS["rejected"]
    run_native(marker=marker)
    assert native.STATS["rejected"] == rejected + 1
    assert sha256(target) == manifest(cache)[kernel_name()] != sha256(lib)  # replaced by fgraph's own build


def test_a_symlinked_library_is_refused_even_when_listed(cache, planted):
    """A symlink is refused before its digest is looked at: a manifest entry does not make it trusted."""
    lib, marker = planted
    cache.mkdir(parents=True, mode=0o700)
    target = cache / (kernel_name() + ".so")
    target.symlink_to(lib)
    (cache / "manifest.json").write_text(json.dumps({"version": 1, "sha256": {kernel_name(): sha256(lib)}}))
    (cache / "manifest.json").chmod(0o600)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run_native(marker=marker)
        run_native("subtract")  # the folder stays refused, without a second warning
    (w,) = untrusted_warnings(caught)
    assert str(cache) in str(w.message) and "symbolic link" in str(w.message)
    assert target.is_symlink() and libraries(cache) == [target.name]  # nothing was published there


# ---------------------------------------------------------------- permissions

def test_folders_and_files_are_private_whatever_the_umask(cache):
    old = os.umask(0)
    try:
        run_native()
    finally:
        os.umask(old)
    for folder in (cache.parent.parent, cache.parent, cache):  # $XDG_CACHE_HOME, fgraph, native: all made here
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder
    names = os.listdir(cache)
    assert sorted(names) == [kernel_name() + ".so", "manifest.json"]
    for name in names:
        assert stat.S_IMODE((cache / name).stat().st_mode) == 0o600, name


def _spoil(cache, how, monkeypatch):
    """Make the cache folder untrusted in one way; returns the folder the warning must name."""
    if how == "manifest group-writable":
        run_native("maximum")  # a cache in good order, then its manifest opened to the group
        native.clear_memory_cache(compiler=False)
        (cache / "manifest.json").chmod(0o620)
        return cache
    if how == "folder is a symlink":
        real = cache.parent / "elsewhere"
        real.mkdir(parents=True, mode=0o700)
        cache.symlink_to(real)
        return cache
    cache.mkdir(parents=True, mode=0o700)
    if how == "group-writable":
        cache.chmod(0o770)
    elif how == "other-writable":
        cache.chmod(0o703)
    elif how == "foreign owner":
        uid = os.getuid()
        monkeypatch.setattr(os, "getuid", lambda: uid + 1)  # the folder's owner is now someone else
    return cache


@pytest.mark.parametrize("how", ["group-writable", "other-writable", "foreign owner", "folder is a symlink",
                                 "manifest group-writable"])
def test_an_untrusted_folder_warns_once_and_kernels_still_run(cache, monkeypatch, how):
    folder = _spoil(cache, how, monkeypatch)
    before = set(os.listdir(folder))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run_native("add")
        run_native("subtract")  # a second build: still private, no second warning
    (w,) = untrusted_warnings(caught)
    assert str(folder) in str(w.message) and "private temporary folder" in str(w.message)
    assert set(os.listdir(folder)) == before  # nothing was written to (or loaded from) the refused folder


# ---------------------------------------------------------------- damaged libraries

def _code_segment(elf: bytes):
    """(offset, size) in the file of the executable segment of a 64-bit little-endian ELF file."""
    if elf[:4] != b"\x7fELF" or elf[4:6] != b"\x02\x01":
        pytest.skip("libraries here are not 64-bit little-endian ELF")
    (phoff,) = struct.unpack_from("<Q", elf, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", elf, 0x36)
    for i in range(phnum):
        p_type, p_flags, p_offset, _, _, p_filesz = struct.unpack_from("<IIQQQQ", elf, phoff + i * phentsize)
        if p_type == 1 and p_flags & 1:  # PT_LOAD, executable
            return p_offset, p_filesz
    pytest.fail("no executable segment")


#: run in a child process: loading a damaged library there must not crash it
CHILD = """
import json, numpy as np
from fgraph.engines.numpy_kernels import native
x, y = np.linspace(-4, 4, 64), np.linspace(3, -5, 64)
out = np.empty_like(x)
ran = native.run(((\"add\", (-1, -2), (), np.dtype(\"float64\")),), [x, y], out)
print(json.dumps({"ran": ran, "right": bool((out == x + y).all()), "rejected": native.STATS["rejected"],
                  "compiles": native.STATS["compiles"]}))
"""


@pytest.mark.parametrize("damage", ["truncated", "flipped byte"])
def test_a_damaged_library_is_rebuilt_not_loaded(cache, damage):
    run_native()
    lib = cache / (kernel_name() + ".so")
    good = lib.read_bytes()
    if damage == "truncated":  # an interrupted copy or a full disk: mapping it gives SIGBUS
        bad = good[:len(good) // 2]
    else:  # a bad sector or a stray write in the code
        offset, size = _code_segment(good)
        at = offset + size // 2
        bad = good[:at] + bytes([good[at] ^ 0xFF]) + good[at + 1:]
    lib.write_bytes(bad)
    env = {k: v for k, v in os.environ.items() if k != "FGRAPH_CACHE_DIR"}
    env["XDG_CACHE_HOME"] = str(cache.parent.parent)
    child = subprocess.run([sys.executable, "-c", CHILD], env=env, cwd=REPO, capture_output=True, text=True,
                           timeout=120)
    assert child.returncode == 0, f"the child died (signal {-child.returncode}): {child.stderr[-2000:]}"
    got = json.loads(child.stdout.strip().splitlines()[-1])
    assert got == {"ran": True, "right": True, "rejected": 1, "compiles": 1}
    assert lib.read_bytes() != bad and sha256(lib) == manifest(cache)[kernel_name()]  # the file was replaced


# ---------------------------------------------------------------- concurrency

def test_threads_building_the_same_kernels_agree(cache):
    sources = [native.Plan(EXPRS[op], SIG).source for op in ("add", "multiply")]
    start, results, errors = threading.Barrier(4), [], []

    def build():
        try:
            start.wait()
            results.append(native.build(sources))
        except Exception as e:  # reported below: an exception in a thread does not fail the test
            errors.append(e)

    threads = [threading.Thread(target=build) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(results) == 4
    for built in results:
        for lib, name in built:
            assert getattr(lib, name)  # each thread got a whole library with its kernels
    names = [kernel_name(op) for op in ("add", "multiply")]
    entries = manifest(cache)
    assert sorted(entries) == sorted(names) and libraries(cache) == sorted(n + ".so" for n in names)
    assert all(sha256(cache / (n + ".so")) == entries[n] for n in names)
    assert sorted(os.listdir(cache)) == libraries(cache) + ["manifest.json"]  # no temporary left behind
    native.clear_memory_cache(compiler=False)
    compiles, loads = native.STATS["compiles"], native.STATS["disk_loads"]
    run_native("add")
    run_native("multiply")
    assert native.STATS["compiles"] == compiles and native.STATS["disk_loads"] == loads + 2


PROCESS = """
import sys, numpy as np
from fgraph.engines.numpy_kernels import native
x, y = np.linspace(-4, 4, 64), np.linspace(3, -5, 64)
for op in sys.argv[1:]:
    out = np.empty_like(x)
    assert native.run(((op, (-1, -2), (), np.dtype("float64")),), [x, y], out)
    assert (out == getattr(np, op)(x, y)).all()
"""


def test_processes_building_at_once_keep_every_manifest_entry(cache):
    """Three processes each build their own kernel and a shared one: no entry is lost in the merge."""
    env = {k: v for k, v in os.environ.items() if k != "FGRAPH_CACHE_DIR"}
    env["XDG_CACHE_HOME"] = str(cache.parent.parent)
    procs = [subprocess.Popen([sys.executable, "-c", PROCESS, op, "maximum"], env=env, cwd=REPO)
             for op in ("add", "subtract", "multiply")]
    assert [p.wait(timeout=120) for p in procs] == [0, 0, 0]
    names = sorted(kernel_name(op) for op in EXPRS)
    entries = manifest(cache)
    assert sorted(entries) == names and all(sha256(cache / (n + ".so")) == entries[n] for n in names)
    assert sorted(os.listdir(cache)) == [n + ".so" for n in names] + ["manifest.json"]
    native.clear_memory_cache(compiler=False)
    compiles, rejected = native.STATS["compiles"], native.STATS["rejected"]
    for op in EXPRS:
        run_native(op)
    assert native.STATS["compiles"] == compiles and native.STATS["rejected"] == rejected
