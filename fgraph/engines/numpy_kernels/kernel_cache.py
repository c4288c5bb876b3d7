"""The disk cache of compiled native kernels, and when it is trusted.

Loading a shared library runs its code in this process, and loading a
damaged one crashes it (SIGBUS for a truncated file, SIGILL or SIGSEGV for
altered code) where Python cannot catch it.  So a library in the cache is
loaded only when all of these hold, checked before ``dlopen``:

- the folder (:func:`cache_dir`) is a real folder (not a symbolic link),
  owned by this user and writable by no one else;
- the library is a regular file (not a symbolic link), owned by this user
  and writable by no one else;
- its sha256 equals the digest recorded when fgraph built it, in the
  folder's manifest (``manifest.json``, held to the same rules).

A library the manifest does not list (planted, or left by an older fgraph)
or whose digest differs (truncated, flipped bytes) is built again and
replaces the file.  A folder, manifest or library that breaks the
ownership, permission or symlink rules makes the whole folder untrusted for
this process: one :class:`UntrustedCacheWarning` names it and the reason,
and kernels are built in a private temporary folder instead (nothing kept).

Writes: missing folders are made 0700 and files 0600 whatever the umask;
a library is compiled in a private build folder inside the cache and
``os.replace``-d into place, so no process sees a partial file; the
manifest is merged (read, update, temporary file, ``os.replace``) under a
thread lock and an ``flock`` on the folder, so concurrent builds from
threads or processes keep every entry.

The same measures guard ccache (temporary file then rename; checksummed
entries, a bad one is dropped and rebuilt), CPython's pyc cache
(``_write_atomic``: temporary name then ``os.replace``) and Triton's kernel
cache (temporary file then ``os.replace``).
"""
from __future__ import annotations

import errno
import hashlib
import json
import os
import shutil
import stat
import tempfile
import threading
import warnings
from contextlib import contextmanager

try:
    import fcntl
except ImportError:  # Windows: threads are still serialised by the lock
    fcntl = None

MANIFEST = "manifest.json"
SUFFIX = ".so"

_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_DIRECTORY = getattr(os, "O_DIRECTORY", 0)

#: serialises this process's manifest updates (flock serialises processes)
_lock = threading.Lock()
#: folders found untrusted: not used again by this process (and warned about once)
_distrusted: set = set()
#: folder -> (the manifest's identity, its entries): parsed again only once replaced
_manifests: dict = {}


class UntrustedCacheWarning(UserWarning):
    """The kernel cache folder was not used: someone else could have written to it."""


class Untrusted(Exception):
    """A cache folder or file that must not be used (the message says why)."""


def cache_dir() -> str:
    """The cache folder: ``$FGRAPH_CACHE_DIR/native``, else
    ``$XDG_CACHE_HOME/fgraph/native``, else ``~/.cache/fgraph/native``."""
    root = os.environ.get("FGRAPH_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "fgraph")
    return os.path.join(root, "native")


def cache_limit_bytes() -> int:
    """How large the disk cache may grow (``$FGRAPH_NATIVE_CACHE_MB``, default 256)."""
    try:
        return int(float(os.environ.get("FGRAPH_NATIVE_CACHE_MB", "256")) * 2**20)
    except ValueError:
        return 256 * 2**20


# ---------------------------------------------------------------- trust

def _check(st: os.stat_result, what: str) -> None:
    """Raise :class:`Untrusted` unless ``st`` (an lstat) is this user's and
    writable by no one else (without POSIX owners, as on Windows, whose
    mode bits say nothing of other users, only symlinks are refused)."""
    if stat.S_ISLNK(st.st_mode):
        raise Untrusted(f"{what} is a symbolic link")
    if not hasattr(os, "getuid"):
        return
    uid = os.getuid()
    if st.st_uid != uid:
        raise Untrusted(f"{what} is owned by user id {st.st_uid}, not by this user ({uid})")
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise Untrusted(f"{what} is writable by group or others (mode {stat.S_IMODE(st.st_mode):o})")


def _make_private(d: str) -> None:
    """Create ``d`` and its missing parents as 0700 folders, whatever the umask."""
    missing = []
    p = os.path.abspath(d)
    while not os.path.lexists(p):
        missing.append(p)
        parent = os.path.dirname(p)
        if parent == p:
            break
        p = parent
    for p in reversed(missing):
        try:
            os.mkdir(p, 0o700)
        except FileExistsError:  # made meanwhile by another process: checked below like any other
            continue
        os.chmod(p, 0o700)  # the umask can only remove bits; an odd one may remove the owner's


def _open_checked(path: str, what: str) -> int | None:
    """A read-only descriptor of the regular file ``path`` after the trust
    checks (on the open file, so it cannot be swapped between check and
    read), or None when it does not exist."""
    try:
        # O_NONBLOCK: a FIFO planted under the name must not hang the open
        fd = os.open(path, os.O_RDONLY | _O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        return None
    except OSError as e:
        if e.errno == errno.ELOOP or os.path.islink(path):  # O_NOFOLLOW refuses a symlink with ELOOP
            raise Untrusted(f"{what} is a symbolic link") from None
        raise
    try:
        st = os.fstat(fd)
        _check(st, what)
        if not stat.S_ISREG(st.st_mode):
            raise Untrusted(f"{what} is not a regular file")
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_folder() -> str | None:
    """The cache folder, made if missing, or None when kernels must be built
    in a private temporary folder: it cannot be made (a read-only home), or
    it (or its manifest) is untrusted, which warns once per folder."""
    d = cache_dir()
    if d in _distrusted:
        return None
    try:
        _make_private(d)
        st = os.lstat(d)
        _check(st, f"the folder {d}")
        if not stat.S_ISDIR(st.st_mode):
            raise Untrusted(f"{d} is not a folder")
        manifest(d)
    except Untrusted as e:
        distrust(d, str(e))
        return None
    except OSError:
        return None
    return d


def distrust(d: str, reason: str) -> None:
    """Stop using ``d`` in this process; warn once that it is not used, and why."""
    with _lock:
        if d in _distrusted:
            return
        _distrusted.add(d)
    warnings.warn(f"fgraph: not using the native kernel cache {d}: {reason}. Kernels are built in a private "
                  f"temporary folder instead (nothing is kept); remove the folder, or set FGRAPH_CACHE_DIR to "
                  f"a folder only you can write, to cache them again.", UntrustedCacheWarning, stacklevel=3)


def forget() -> None:
    """Forget the folders distrusted and the manifests read (tests start afresh)."""
    with _lock:
        _distrusted.clear()
        _manifests.clear()


# ---------------------------------------------------------------- manifest

def manifest(d: str) -> dict:
    """{kernel name: sha256 hex} of the libraries fgraph built in ``d``.
    A missing or unreadable manifest is empty (every library is rebuilt);
    raises :class:`Untrusted` for one someone else could have written."""
    path = os.path.join(d, MANIFEST)
    fd = _open_checked(path, f"the manifest {path}")
    if fd is None:
        return {}
    try:
        st = os.fstat(fd)
        ident = (st.st_dev, st.st_ino, st.st_mtime_ns, st.st_size)  # replaced, never rewritten in place
        got = _manifests.get(d)
        if got is not None and got[0] == ident:
            return got[1]
        with os.fdopen(os.dup(fd), "rb") as f:
            raw = f.read()
    finally:
        os.close(fd)
    try:
        data = json.loads(raw)
        entries = {k: v for k, v in data["sha256"].items()
                   if isinstance(k, str) and isinstance(v, str) and len(v) == 64}
    except (ValueError, TypeError, KeyError, AttributeError):  # torn or foreign content: trust nothing in it
        entries = {}
    _manifests[d] = (ident, entries)
    return entries


@contextmanager
def _locked(d: str):
    """Exclusive use of ``d``'s manifest: the thread lock, then an flock on
    the folder itself (no lock file to guard)."""
    with _lock:
        fd = os.open(d, os.O_RDONLY | _O_DIRECTORY | _O_NOFOLLOW)
        try:
            if fcntl is not None:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX)
                except OSError:  # a filesystem without flock: a lost entry only costs a rebuild
                    pass
            yield
        finally:
            os.close(fd)  # releases the flock


def _record(d: str, new: dict) -> None:
    """Merge ``new`` into the manifest (entries of removed libraries are
    dropped); hold :func:`_locked`."""
    entries = dict(manifest(d))
    entries.update(new)
    present = {e.name[:-len(SUFFIX)] for e in os.scandir(d) if e.name.endswith(SUFFIX)}
    entries = {k: v for k, v in sorted(entries.items()) if k in present}
    fd, tmp = tempfile.mkstemp(prefix=".manifest-", dir=d)  # mkstemp: 0600, a fresh name
    try:
        with os.fdopen(fd, "w") as f:
            json.dump({"version": 1, "sha256": entries}, f, indent=0)
        os.replace(tmp, os.path.join(d, MANIFEST))
    except BaseException:
        _remove(tmp)
        raise


# ---------------------------------------------------------------- libraries

def digest(path_or_fd) -> str:
    """The sha256 (hex) of a file's bytes."""
    h = hashlib.sha256()
    if isinstance(path_or_fd, int):
        f = os.fdopen(os.dup(path_or_fd), "rb")
    else:
        f = open(path_or_fd, "rb")
    with f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def library_path(d: str, name: str) -> str:
    return os.path.join(d, name + SUFFIX)


def verified(d: str, name: str) -> tuple[str | None, str]:
    """(path, "ok") of kernel ``name``'s library in ``d`` when it may be
    loaded, else (None, why): "missing", "unlisted" (not built by fgraph)
    or "damaged" (its digest differs).  Raises :class:`Untrusted` for a
    symlink or a file someone else could have written."""
    path = library_path(d, name)
    fd = _open_checked(path, f"the library {path}")
    if fd is None:
        return None, "missing"
    try:
        want = manifest(d).get(name)
        if want is None:
            return None, "unlisted"
        # Between this check and dlopen only this user can change the file
        # (the folder is private), and fgraph only ever replaces it whole.
        return (path, "ok") if digest(fd) == want else (None, "damaged")
    finally:
        os.close(fd)


def new_build_folder(d: str | None) -> str:
    """A private (0700) folder to compile in: inside ``d`` so that
    publishing is a rename, or a temporary one when ``d`` is None."""
    return tempfile.mkdtemp(prefix=".build-", dir=d) if d is not None else tempfile.mkdtemp(prefix="fgraph-native-")


def publish(d: str, built: str, names) -> None:
    """Put the library ``built`` (in a build folder inside ``d``) in the
    cache under each of ``names`` (hard links to one file) and record its
    digest; each name appears whole, replacing what was there."""
    os.chmod(built, 0o600)  # the compiler made it 0777 less the umask
    sha = digest(built)
    with _locked(d):
        for name in names:
            tmp = f"{built}.{name}"
            try:
                os.link(built, tmp)
            except OSError:  # no hard links here: a private copy
                shutil.copyfile(built, tmp)
                os.chmod(tmp, 0o600)
            os.replace(tmp, library_path(d, name))
        _record(d, {name: sha for name in names})


def _remove(path: str) -> None:
    try:
        os.remove(path)
    except OSError:
        pass


def trim(d: str, limit: int, keep=()) -> int:
    """Remove the libraries used least recently until ``d`` holds at most
    ``limit`` bytes of them (then 3/4 of it, so trimming is rare), never
    those named in ``keep``; returns the bytes freed.

    A library's file time is its last load.  Kernels built together share
    one library under several names (hard links): its bytes count once and
    are freed with its last name.  A process that loaded a removed library
    keeps it mapped; one about to load it builds it again.  Manifest
    entries of removed libraries go at the next build's update."""
    try:
        entries = [e for e in os.scandir(d) if e.name.endswith(SUFFIX) and e.is_file(follow_symlinks=False)
                   and e.name[:-len(SUFFIX)] not in keep]
    except OSError:
        return 0
    stats = []
    for e in entries:
        try:
            stats.append((e.stat(follow_symlinks=False), e.path))
        except OSError:  # removed meanwhile by another process
            pass
    names_left: dict = {}
    for st, _ in stats:
        names_left[(st.st_dev, st.st_ino)] = names_left.get((st.st_dev, st.st_ino), 0) + 1
    size = {(st.st_dev, st.st_ino): st.st_size for st, _ in stats}
    total = sum(size.values())
    if total <= limit:
        return 0
    target, freed = limit * 3 // 4, 0
    for st, path in sorted(stats, key=lambda sp: sp[0].st_mtime):
        if total - freed <= target:
            break
        try:
            os.remove(path)
        except OSError:
            continue
        key = (st.st_dev, st.st_ino)
        names_left[key] -= 1
        if not names_left[key]:
            freed += size[key]
    return freed


def _after_fork():
    # a thread of the parent may have held the lock when it forked
    global _lock
    _lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)
