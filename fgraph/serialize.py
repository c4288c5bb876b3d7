"""Saving and loading graphs: ``save(graph, path)`` and ``load(path)``.

A saved graph is one zip file with two members:

``graph.json``
    ``{"format": "fgraph.graph", "version": 1, "subgraphs": [G...],
    "graph": G}``.  A graph ``G`` holds ``nodes`` in topological order
    (inputs before users), each ``{"op", "params", "inputs", "shape",
    "dtype", "weak", "name", "where"}`` with ``inputs`` the indices of
    earlier nodes; ``inputs``, ``outputs`` and ``updates`` (``[variable,
    value]`` pairs) as node indices; the outputs' ``structure``.
    ``subgraphs`` are the graphs params hold (a loop's body), each written
    once and named by its index: ``["graph", k]``.  Files written before
    graphs lost their attributes also hold a graph field ``attrs`` (``[key,
    value]`` pairs of param values): it is still accepted and checked as
    before (its values decoded, its keys hashable and distinct, a sub-graph
    it names counts as used), then ignored.
``arrays.npz``
    the data of constants and variables (``numpy.savez``), member ``aN``
    named by the value ``["array", "aN"]`` in the JSON.

A param value is JSON ``null``, ``true``/``false``, an integer or a string
as itself; anything else is a tagged pair ``[tag, payload]`` with the tags of
``_DECODERS`` (floats by their IEEE bits, so ``-0.0`` and NaN payloads round
trip; dtypes by their type code; ``["graph", k]`` a sub-graph, which may
only name sub-graphs before it, so none can contain itself and decoding
never recurses into graphs).  Loading decodes through that
whitelist alone: it never unpickles, evaluates or imports anything the file
names; nodes are rebuilt by the op registry's shape rules (``make_node``)
and must come out with the recorded shape and dtype.  Everything a file may
get wrong is refused with an ``FgraphError`` naming the problem, and no
array is allocated before its size is checked against the sizes the zip
file declares and the bytes it holds.
"""
from __future__ import annotations

import io
import itertools
import json
import math
import os
import re
import struct
import zipfile
import zlib
from typing import Any

import numpy as np

from . import symbol
from .errors import FgraphError
from .graph import Graph
from .shape import PY_SCALAR_DTYPES
from .tensor import constant_node
from .tree import LEAF, unflatten
from .symbol import Const, Node, Released, Scalar, make_node, topological
from .registry import is_registered

FORMAT = "fgraph.graph"
VERSION = 1

#: how deep params (tuples, slices, nested graphs) may nest: the decoder
#: recurses once per level, so a file cannot exhaust the stack
MAX_DEPTH = 64
#: the largest ratio of a zip member's declared size to its stored size:
#: deflate cannot exceed about 1032:1, so a larger claim is a lie (a zip bomb)
MAX_RATIO = 1100
#: the largest ratio graph.json may inflate by, unless load's max_bytes is
#: given: saved graphs deflate by 30-50:1 (repeated ops), while a bomb of
#: empty JSON arrays deflates by 1000:1 and parses to 20 times its text
JSON_RATIO = 200
#: dtype type codes a node or an array may have (bool, integers, floats, complex)
DTYPE_CODES = frozenset("?bBhHiIlLqQefdgFDG")
#: the most dimensions an array may have (NumPy's own limit)
MAX_NDIM = 64
#: bytes in an npy header that numpy.load reads (its own default)
MAX_HEADER = 10000

_MEMBERS = ("graph.json", "arrays.npz")
_NODE_KEYS = frozenset(("op", "params", "inputs", "shape", "dtype", "weak", "name", "where"))
_NODE_REQUIRED = ("op", "params", "inputs", "shape", "dtype")
_GRAPH_REQUIRED = ("nodes", "inputs", "outputs", "structure", "updates")
_GRAPH_KEYS = frozenset(_GRAPH_REQUIRED + ("attrs",))  # attrs: files of earlier fgraphs only (read, then ignored)
_HEX16 = re.compile(r"[0-9a-f]{16}")
_HEX = re.compile(r"(?:[0-9a-f]{2})*")
_ARRAY_NAME = re.compile(r"a[0-9]{1,12}")
_MAX_ID = (1 << 63) - 1


def _fail(where: str, problem: str) -> FgraphError:
    return FgraphError(f"{where}: {problem}")


# ---------------------------------------------------------------- saving

class _Writer:
    """Encodes one graph (and the graphs nested in its params): JSON values
    plus the arrays, each Const's data written once."""

    def __init__(self, locations: bool):
        self.locations = locations
        self.arrays: dict[str, np.ndarray] = {}
        # keyed by the Const: small ones compare by content, so equal constants share one member
        self._array_names: dict[Const, str] = {}
        self._keep: list = []  # the sub-graphs indexed by id below: their ids stay theirs while we run
        self._params: dict[int, tuple] = {}  # id(params) -> (params, encoded): ops share params tuples
        self.subgraphs: list[dict] = []
        self._graph_index: dict[int, int] = {}

    def graph(self, g, depth: int) -> dict:
        if depth > MAX_DEPTH:
            raise _fail("fgraph.save", f"graphs nest more than {MAX_DEPTH} deep in params")
        updates = g.updates
        nodes = topological(g.outputs + tuple(v for _, v in updates) + tuple(var for var, _ in updates) + g.inputs)
        index = {id(n): i for i, n in enumerate(nodes)}
        return {
            "nodes": [self.node(n, index, depth) for n in nodes],
            "inputs": [index[id(n)] for n in g.inputs],
            "outputs": [index[id(n)] for n in g.outputs],
            "structure": self.value(g.structure, depth + 1),
            "updates": [[index[id(a)], index[id(b)]] for a, b in updates],
        }

    def node(self, n: Node, index: dict, depth: int) -> dict:
        hit = self._params.get(id(n.params))
        if hit is not None and hit[0] is n.params:
            params = hit[1]
        else:
            if type(n.params) is not tuple or not all(type(p) is tuple and len(p) == 2 and type(p[0]) is str
                                                       for p in n.params):
                raise _fail("fgraph.save", f"node {n.op!r}: params are not (name, value) pairs: {n.params!r}")
            params = [[k, self.value(v, depth + 1)] for k, v in n.params]
            self._params[id(n.params)] = (n.params, params)
        rec = {"op": n.op, "params": params, "inputs": [index[id(i)] for i in n.inputs], "shape": list(n.shape),
               "dtype": _dtype_code(n.dtype, n.op), "weak": n.weak, "name": n.name}
        if self.locations and n.where is not None:
            rec["where"] = [str(n.where[0]), int(n.where[1])]
        return rec

    def value(self, v: Any, depth: int):
        """A param value as JSON (see the module docstring)."""
        if depth > MAX_DEPTH:
            raise _fail("fgraph.save", f"params nest more than {MAX_DEPTH} deep")
        t = type(v)
        if v is None or t is bool or t is int or t is str:
            return v
        if t is tuple:
            return ["tuple", [self.value(e, depth + 1) for e in v]]
        if isinstance(v, np.generic):  # before float: np.float64 is a float
            return ["numpy", [_dtype_code(v.dtype, "a param"), np.asarray(v).tobytes().hex()]]
        if t is float:
            return ["float", _float_bits(v)]
        if t is complex:
            return ["complex", [_float_bits(v.real), _float_bits(v.imag)]]
        if t is Scalar:
            return ["scalar", self.value(v.value, depth + 1)]
        if t is Const or t is Released:  # (a released history's value is a constant as any other once saved)
            return ["array", self.array(v)]
        if t is slice:
            return ["slice", [self.value(e, depth + 1) for e in (v.start, v.stop, v.step)]]
        if v is Ellipsis:
            return ["ellipsis", None]
        if t is frozenset:  # in a fixed order, so equal sets save to equal files
            items = [self.value(e, depth + 1) for e in v]
            return ["frozenset", sorted(items, key=lambda e: json.dumps(e, sort_keys=True))]
        if isinstance(v, np.dtype):
            return ["dtype", _dtype_code(v, "a param")]

        if t is Graph:
            return ["graph", self.subgraph(v, depth)]
        raise _fail("fgraph.save", f"a param of type {t.__module__}.{t.__qualname__} ({v!r:.80}) has no saved form")

    def subgraph(self, g, depth: int) -> int:
        """``g``'s index in ``subgraphs``: written once however many nodes
        hold it (a loop makes one node per result, all with its body)."""
        k = self._graph_index.get(id(g))
        if k is None:
            rec = self.graph(g, depth + 1)  # (appends g's own sub-graphs first: a graph names earlier ones only)
            k = len(self.subgraphs)
            self.subgraphs.append(rec)
            self._graph_index[id(g)] = k
            self._keep.append(g)
        return k

    def array(self, c: Const) -> str:
        name = self._array_names.get(c)
        if name is None:
            arr = c.array  # (an FgraphError if a released constant's data is gone)
            _dtype_code(arr.dtype, "a constant")
            name = f"a{len(self.arrays)}"
            self.arrays[name] = arr
            self._array_names[c] = name
        return name


def _float_bits(x: float) -> str:
    return struct.pack(">d", x).hex()


def _dtype_code(dt: np.dtype, what: str) -> list:
    if dt.char not in DTYPE_CODES or dt.fields is not None or dt.subdtype is not None:
        raise _fail("fgraph.save", f"{what} of dtype {dt} has no saved form (only bool, integer, float and "
                                   "complex dtypes)")
    return [dt.char, dt.byteorder]


def save(graph, path, *, compress: bool = False, locations: bool = True) -> None:
    """Save ``graph`` (an ``fgraph.Graph``) to ``path`` as one zip file.

    Parameters
    ----------
    graph : fgraph.Graph
    path : str, os.PathLike or a writable binary file
        A path is written to a temporary file beside it and renamed, so a
        failed save never leaves half a file in its place.
    compress : bool
        Deflate the arrays (smaller files, slower saves and loads).
    locations : bool
        Keep each node's source location (file and line) for error messages.
    """
    if not isinstance(graph, Graph):
        raise _fail("fgraph.save", f"expected an fgraph.Graph, got {type(graph).__name__}")
    w = _Writer(locations)
    with symbol.no_gc():  # (nodes and the JSON values form no cycles: a collection would only walk them)
        main = w.graph(graph, 0)
    doc = {"format": FORMAT, "version": VERSION, "subgraphs": w.subgraphs, "graph": main}
    text = json.dumps(doc, separators=(",", ":"), allow_nan=False).encode("utf-8")
    if hasattr(path, "write"):
        _write(path, text, w.arrays, compress)
        return
    path = os.fspath(path)
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        with open(tmp, "wb") as f:
            _write(f, text, w.arrays, compress)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _write(f, text: bytes, arrays: dict, compress: bool) -> None:
    with zipfile.ZipFile(f, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("graph.json", text)
        # arrays.npz is stored (not deflated) in the outer zip: the loader
        # then reads its members in place; np.savez streams each array into
        # it, so saving copies no array
        with zf.open(zipfile.ZipInfo("arrays.npz"), "w", force_zip64=True) as member:
            (np.savez_compressed if compress else np.savez)(member, **arrays)


# ---------------------------------------------------------------- loading

class _Window(io.RawIOBase):
    """A read-only, seekable view of bytes [start, start + size) of ``f``:
    the stored arrays.npz read in place (a zip member's own file object
    rewinds and re-reads from its start on every backward seek)."""

    def __init__(self, f, start: int, size: int):
        self._f, self._start, self._size, self._pos = f, start, size, 0

    def readable(self):
        return True

    def seekable(self):
        return True

    def tell(self):
        return self._pos

    def seek(self, offset, whence=0):
        base = (0, self._pos, self._size)[whence]
        self._pos = max(0, base + offset)
        return self._pos

    def readinto(self, b):
        n = max(0, min(len(b), self._size - self._pos))
        if n == 0:
            return 0
        self._f.seek(self._start + self._pos)
        data = self._f.read(n)
        b[:len(data)] = data
        self._pos += len(data)
        return len(data)


def _check_member(info: zipfile.ZipInfo, where: str, budget: list, counted: bool = True) -> None:
    """Refuse a member whose declared size its stored bytes cannot justify
    (before anything is decompressed or allocated)."""
    if info.flag_bits & 0x1:
        raise _fail(where, f"member {info.filename!r} is encrypted")
    if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        raise _fail(where, f"member {info.filename!r} uses compression method {info.compress_type} (only stored or "
                           "deflated)")
    if info.compress_type == zipfile.ZIP_STORED and info.file_size != info.compress_size:
        raise _fail(where, f"member {info.filename!r} is stored but declares {info.file_size} bytes in "
                           f"{info.compress_size}")
    if info.file_size > MAX_RATIO * info.compress_size + 1024:
        raise _fail(where, f"member {info.filename!r} declares {info.file_size:,} bytes from {info.compress_size:,} "
                           f"compressed (more than {MAX_RATIO}:1: a zip bomb or a corrupt file)")
    budget[0] -= info.file_size if counted else 0
    if budget[0] < 0:
        raise _fail(where, "the file declares more bytes than max_bytes allows")


def _members(zf: zipfile.ZipFile, where: str, budget: list) -> dict[str, zipfile.ZipInfo]:
    infos = zf.infolist()
    names = [i.filename for i in infos]
    if len(set(names)) != len(names):
        raise _fail(where, "a member name appears twice")
    for info in infos:
        # a stored arrays.npz is read in place: its members are what decompresses
        _check_member(info, where, budget, not (info.filename == "arrays.npz"
                                                and info.compress_type == zipfile.ZIP_STORED))
    return {i.filename: i for i in infos}


class _Arrays:
    """The arrays of arrays.npz, checked when opened, read when first used."""

    def __init__(self, npz, infos: dict, where: str):
        self.npz, self.where = npz, where
        self.headers: dict[str, tuple] = {}
        self.loaded: dict[str, np.ndarray] = {}
        self.used: set[str] = set()
        for fname, info in infos.items():
            key = fname[:-4] if fname.endswith(".npy") else None
            if key is None or not _ARRAY_NAME.fullmatch(key):
                raise _fail(where, f"arrays.npz holds an unexpected member {fname!r}")
            self.headers[key] = self._header(npz.zip, info)

    def _header(self, zf, info) -> tuple:
        """(shape, dtype) of one npy member; its data must fill the member exactly."""
        with zf.open(info) as f:
            version = np.lib.format.read_magic(f)
            if version == (1, 0):
                shape, fortran, dtype = np.lib.format.read_array_header_1_0(f, max_header_size=MAX_HEADER)
            elif version == (2, 0):
                shape, fortran, dtype = np.lib.format.read_array_header_2_0(f, max_header_size=MAX_HEADER)
            else:
                raise _fail(self.where, f"array {info.filename!r} has npy format version {version}")
            start = f.tell()
        if dtype.char not in DTYPE_CODES or dtype.fields is not None or dtype.subdtype is not None:
            raise _fail(self.where, f"array {info.filename!r} has dtype {dtype} (only bool, integer, float and "
                                    "complex)")
        if len(shape) > MAX_NDIM:
            raise _fail(self.where, f"array {info.filename!r} has {len(shape)} dimensions")
        nbytes = math.prod(shape) * dtype.itemsize
        if start + nbytes != info.file_size:
            raise _fail(self.where, f"array {info.filename!r} declares shape {shape} of {dtype} ({nbytes:,} bytes) "
                                    f"but its member holds {info.file_size - start:,}")
        return tuple(shape), dtype

    def get(self, key) -> np.ndarray:
        if type(key) is not str or key not in self.headers:
            raise _fail(self.where, f"array {key!r} is not in arrays.npz")
        arr = self.loaded.get(key)
        if arr is None:
            arr = self.npz[key]
            # read-only all the way down: Const then keeps it without a copy
            b = arr
            while isinstance(b, np.ndarray):
                b.flags.writeable = False
                b = b.base
            self.loaded[key] = arr
        self.used.add(key)
        return arr


def load(path, *, max_bytes: int | None = None):
    """Load a graph saved by :func:`save`.

    Parameters
    ----------
    path : str, os.PathLike or a readable, seekable binary file
    max_bytes : int, optional
        The most bytes the file's members may hold once decompressed.  By
        default what the file's size justifies: each member at most
        ``MAX_RATIO`` times its compressed bytes, graph.json at most
        ``JSON_RATIO`` times (its parsed form is some 20 times larger).

    Returns
    -------
    fgraph.Graph
        With the saved nodes' structural keys (a constant of more than
        ``symbol.CONTENT_KEY_BYTES`` is keyed by identity: it loads as a new
        constant of equal content).

    Raises
    ------
    FgraphError
        For anything the file gets wrong, naming the problem.
    """
    if hasattr(path, "read"):
        name = getattr(path, "name", None)
        return _load(path, f"fgraph.load({name!r})" if isinstance(name, str) else "fgraph.load", max_bytes)
    where = f"fgraph.load({os.fspath(path)!r})"
    with open(path, "rb") as f:
        return _load(f, where, max_bytes)


#: what reading a corrupt zip, npy header or JSON text may raise
_CORRUPT = (zipfile.BadZipFile, zipfile.LargeZipFile, zlib.error, EOFError, ValueError, KeyError, IndexError, TypeError,
            OverflowError, struct.error, UnicodeError, RecursionError, MemoryError, NotImplementedError, RuntimeError,
            OSError, SyntaxError)


def _load(f, where: str, max_bytes):
    budget = [max_bytes if max_bytes is not None else 1 << 62]
    try:
        zf = zipfile.ZipFile(f)
        infos = _members(zf, where, budget)
        unknown = sorted(set(infos) - set(_MEMBERS))
        if unknown:
            raise _fail(where, f"unknown member(s) {unknown} (a file of format {FORMAT} version {VERSION} holds "
                               f"{list(_MEMBERS)})")
        missing = [m for m in _MEMBERS if m not in infos]
        if missing:
            raise _fail(where, f"member(s) {missing} missing: not a saved fgraph graph")
        text = infos["graph.json"]
        if max_bytes is None and text.file_size > JSON_RATIO * text.compress_size + (1 << 16):
            raise _fail(where, f"graph.json declares {text.file_size:,} bytes from {text.compress_size:,} compressed "
                               f"(more than {JSON_RATIO}:1; pass max_bytes to load it anyway)")
        with symbol.no_gc():  # (JSON values and nodes form no cycles: a collection would only walk them)
            doc = _parse_json(_read(zf, text, where), where)
        npz = _open_npz(f, zf, infos["arrays.npz"], where)
        if not isinstance(npz, np.lib.npyio.NpzFile):
            raise _fail(where, "arrays.npz is not an npz archive")
        with npz:
            arrays = _Arrays(npz, _members(npz.zip, where, budget), where)
            with symbol.no_gc():
                g = _Reader(arrays, where).document(doc)
            unused = sorted(set(arrays.headers) - arrays.used)
            if unused:
                raise _fail(where, f"arrays.npz holds array(s) {unused[:5]} that no node uses")
            return g
    except FgraphError:
        raise
    except _CORRUPT as e:
        raise _fail(where, f"not a valid saved graph (a corrupt or truncated file): {type(e).__name__}: "
                           f"{str(e)[:200]}") from e


def _read(zf, info, where) -> bytearray:
    """A member's bytes, decompressed a block at a time: never more than it
    declares (``ZipFile.read`` inflates the whole stream in one call, so a
    member that lies about its size would cost what it really holds)."""
    out = bytearray()
    with zf.open(info) as fp:
        while True:
            block = fp.read(1 << 16)
            if not block:
                break
            out += block
            if len(out) > info.file_size:
                raise _fail(where, f"member {info.filename!r} holds more than the {info.file_size:,} bytes it "
                                   "declares")
    if len(out) != info.file_size:
        raise _fail(where, f"member {info.filename!r} holds {len(out):,} bytes, it declares {info.file_size:,}")
    return out


def _open_npz(f, zf, info, where):
    if info.compress_type == zipfile.ZIP_STORED:
        f.seek(info.header_offset)
        head = f.read(zipfile.sizeFileHeader)
        fields = struct.unpack(zipfile.structFileHeader, head)
        if fields[0] != zipfile.stringFileHeader:
            raise zipfile.BadZipFile("bad local header of arrays.npz")
        start = info.header_offset + zipfile.sizeFileHeader + fields[10] + fields[11]
        src = _Window(f, start, info.file_size)
    else:  # a deflated npz cannot be read in place: its size was checked, read it whole
        src = io.BytesIO(_read(zf, info, where))
    return np.load(src, allow_pickle=False)


def _no_float(text):
    raise _fail("graph.json", f"bare JSON number {text[:40]}: floats are saved as [\"float\", bits]")


def _no_constant(text):
    raise _fail("graph.json", f"{text} is not JSON")


def _unique_keys(pairs):
    d = dict(pairs)
    if len(d) != len(pairs):
        raise _fail("graph.json", "an object has a key twice")
    return d


def _parse_json(raw: bytes, where: str):
    try:
        return json.loads(raw.decode("utf-8"), parse_float=_no_float, parse_constant=_no_constant,
                          object_pairs_hook=_unique_keys)
    except FgraphError as e:
        raise _fail(where, str(e)) from None
    except RecursionError:
        raise _fail(where, "graph.json nests too deep") from None


# ---------------------------------------------------------------- decoding

def _is_int(x) -> bool:
    return type(x) is int


def _check_fields(rec, allowed, required, where: str) -> None:
    """``rec`` is a JSON object with no field outside ``allowed`` and every one of ``required``."""
    if type(rec) is not dict:
        raise _fail(where, f"expected an object, got {_jtype(rec)}")
    unknown = sorted(set(rec) - allowed)
    if unknown:
        raise _fail(where, f"unknown field(s) {unknown}")
    missing = [k for k in required if k not in rec]
    if missing:
        raise _fail(where, f"missing field(s) {missing}")


def _jtype(x) -> str:
    return {dict: "an object", list: "an array", str: "a string", int: "an integer", bool: "a boolean",
            type(None): "null"}.get(type(x), type(x).__name__)


class _Reader:
    """Rebuilds graphs from decoded JSON, refusing anything not in the format."""

    def __init__(self, arrays: _Arrays, where: str):
        self.arrays, self.where = arrays, where
        self.max_id = -1
        self.graphs: list = []  # the decoded subgraphs
        self.used_graphs: set[int] = set()
        self.graph_refs = 0  # ["graph", k] values decoded (a node whose params hold one skips make_node's cache)

    def document(self, doc):
        w = self.where
        if type(doc) is not dict:
            raise _fail(w, f"graph.json holds {_jtype(doc)}, not an object")
        if doc.get("format") != FORMAT:
            raise _fail(w, f"not a saved fgraph graph (format {doc.get('format')!r}, "
                            f"expected {FORMAT!r})")
        version = doc.get("version")
        if not _is_int(version):
            raise _fail(w, f"format version {version!r} is not an integer")
        if version != VERSION:
            raise _fail(w, f"unknown format version {version} (this fgraph reads version {VERSION})")
        unknown = sorted(set(doc) - {"format", "version", "subgraphs", "graph"})
        if unknown:
            raise _fail(w, f"unknown field(s) {unknown} in graph.json")
        missing = [k for k in ("subgraphs", "graph") if k not in doc]
        if missing:
            raise _fail(w, f"graph.json has no {missing}")
        if type(doc["subgraphs"]) is not list:
            raise _fail(w, f"'subgraphs' must be an array, not {_jtype(doc['subgraphs'])}")
        for k, rec in enumerate(doc["subgraphs"]):
            self.graphs.append(self.graph(rec, f"subgraphs[{k}]"))
        g = self.graph(doc["graph"], "graph")
        unused = sorted(set(range(len(self.graphs))) - self.used_graphs)
        if unused:
            raise _fail(w, f"subgraphs {unused[:5]} are not used by any param")
        # ids stay unique in this process: placeholders and variables made
        # after the load number after the loaded ones (their ids order a
        # graph's inputs, and two inputs with one default name would clash)
        if self.max_id >= 0 and symbol.next_id() <= self.max_id:
            symbol._counter = itertools.count(self.max_id + 1)
        return g

    def graph(self, rec, at: str):
        w = f"{self.where}: {at}"
        _check_fields(rec, _GRAPH_KEYS, _GRAPH_REQUIRED, w)
        for k in ("nodes", "inputs", "outputs", "updates", "attrs"):
            if type(rec.get(k, [])) is not list:
                raise _fail(w, f"'{k}' must be an array, not {_jtype(rec[k])}")
        nodes: list[Node] = []
        for i, nrec in enumerate(rec["nodes"]):
            nodes.append(self.node(nrec, nodes, f"{at}.nodes[{i}]"))

        def ref(i, what):
            if not (_is_int(i) and 0 <= i < len(nodes)):
                raise _fail(w, f"{what} {i!r} is not a node index "
                                f"(0..{len(nodes) - 1})")
            return nodes[i]

        ins = [ref(i, "input") for i in rec["inputs"]]
        for n in ins:
            if n.op not in ("placeholder", "variable"):
                raise _fail(w, f"input {n} is not a placeholder or variable")
        outs = [ref(i, "output") for i in rec["outputs"]]
        updates = []
        for pair in rec["updates"]:
            if not (type(pair) is list and len(pair) == 2):
                raise _fail(w, f"an update must be a [variable, value] pair, not "
                                f"{pair!r:.80}")
            var, val = ref(pair[0], "updated variable"), ref(pair[1], "update value")
            if var.op != "variable":
                raise _fail(w, f"update of {var}: not a variable")
            if not (val.shape == var.shape and val.dtype == var.dtype):
                raise _fail(w, f"update of {var.name!r}: value {val.dtype}{list(val.shape)} does not match the "
                               f"variable's {var.dtype}{list(var.shape)}")
            updates.append((var, val))
        structure = self.value(rec["structure"], 1, f"{at}.structure")
        outputs = None if structure is None else unflatten(_check_structure(structure, len(outs), w), outs)
        if structure is None and outs:
            raise _fail(w, "outputs without a structure")
        self.old_attrs(rec.get("attrs", []), at, w)
        try:
            g = Graph(outputs, inputs=ins, updates=updates)
        except FgraphError as e:
            raise _fail(w, str(e).split("\n")[0]) from None
        if not (g.structure == structure and len(g.inputs) == len(ins)):
            raise _fail(w, "the outputs' structure does not "
                            "round-trip")
        return g

    def old_attrs(self, pairs: list, at: str, w: str) -> None:
        """The ``attrs`` of a file written before graphs lost them: checked
        as they always were, then dropped."""
        keys = set()
        for pair in pairs:
            if not (type(pair) is list and len(pair) == 2):
                raise _fail(w, "an attr must be a [key, value] pair")
            key = self.value(pair[0], 1, f"{at}.attrs")
            try:
                if key in keys:
                    raise _fail(w, f"attr {key!r:.80} appears twice")
            except TypeError:
                raise _fail(w, f"attr key {key!r:.80} is unhashable") from None
            keys.add(key)
            self.value(pair[1], 1, f"{at}.attrs")

    def node(self, rec, nodes: list, at: str) -> Node:
        w = f"{self.where}: {at}"
        _check_fields(rec, _NODE_KEYS, _NODE_REQUIRED, w)
        op = rec["op"]
        if type(op) is not str:
            raise _fail(w, f"op must be a string, not {_jtype(op)}")
        if not is_registered(op):
            raise _fail(w, f"unknown op {op!r:.80}")
        w = f"{w} (op {op!r})"
        ins = rec["inputs"]
        if type(ins) is not list:
            raise _fail(w, f"inputs must be an array, not {_jtype(ins)}")
        for i in ins:  # earlier nodes only: a file cannot make a cycle
            if not (_is_int(i) and 0 <= i < len(nodes)):
                raise _fail(w, f"input {i!r} is not the index of an earlier node "
                                f"(0..{len(nodes) - 1})")
        inputs = tuple(nodes[i] for i in ins)
        shape = rec["shape"]
        if not (type(shape) is list and len(shape) <= MAX_NDIM and all(type(d) is int and d >= 0 for d in shape)):
            raise _fail(w, f"shape must be an array of at most {MAX_NDIM} non-negative integers, not {shape!r:.80}")
        shape = tuple(shape)
        dtype = self.dtype(rec["dtype"], w)
        weak, name, loc = rec.get("weak", False), rec.get("name"), rec.get("where")
        if type(weak) is not bool:
            raise _fail(w, f"weak must be a boolean, not {_jtype(weak)}")
        if not (name is None or type(name) is str):
            raise _fail(w, f"name must be a string or null, not {_jtype(name)}")
        if loc is not None and not (type(loc) is list and len(loc) == 2 and type(loc[0]) is str
                                    and _is_int(loc[1])):
            raise _fail(w, f"where must be [file, line] or null, not {loc!r:.80}")
        loc = tuple(loc) if loc is not None else None
        praw = rec["params"]
        if type(praw) is not list:
            raise _fail(w, f"params must be an array, not {_jtype(praw)}")
        params = []
        refs = self.graph_refs
        for p in praw:
            if not (type(p) is list and len(p) == 2 and type(p[0]) is str):
                raise _fail(w, f"a param must be a [name, value] pair, not {p!r:.80}")
            params.append((p[0], self.value(p[1], 1, f"{at}.params.{p[0]}")))
        params = tuple(params)
        if len({k for k, _ in params}) != len(params):
            raise _fail(w, f"a param name repeats: {[k for k, _ in params]}")
        if op in ("constant", "literal", "placeholder", "variable"):
            node = self.leaf(op, params, inputs, shape, dtype, weak, name, loc, w)
        else:
            if weak:
                raise _fail(w, "only leaves (literals, placeholders) can be weak")
            try:
                node = self.make(op, inputs, params, name, self.graph_refs != refs)
            except FgraphError as e:
                raise _fail(w, f"the op refuses the saved params or inputs: {str(e).split(chr(10))[0]}") from None
            except Exception as e:  # a shape rule given params of a wrong kind fails in its own way
                raise _fail(w, f"the params are not valid for the op: {type(e).__name__}: {str(e)[:200]}") from e
            if not (node.shape == shape and node.dtype == dtype):
                raise _fail(w, f"the op makes {node.dtype}{list(node.shape)} from these inputs, the file says "
                                f"{dtype}{list(shape)}")
            if node.dtype.char != dtype.char or (loc is not None and node.where != loc):  # keep the saved ones
                node = Node(op, params, inputs, shape, dtype, False, name, loc)
        return node

    @staticmethod
    def make(op, inputs, params, name, holds_graph: bool) -> Node:
        if not holds_graph:
            return make_node(op, inputs, params, name)
        # make_node's shape cache would keep the sub-graphs (and the arrays
        # they hold) alive after the loaded graph is gone: infer without it
        shape, dtype = symbol._infer(op, inputs, params)
        return Node(op, params, inputs, shape, dtype, False, name, None)

    def leaf(self, op, params, inputs, shape, dtype, weak, name, loc, w) -> Node:
        if inputs:
            raise _fail(w, "a leaf has no inputs")
        names = tuple(k for k, _ in params)
        want = {"constant": ("value",), "literal": ("value",), "placeholder": ("name", "id"),
                "variable": ("name", "id", "value")}[op]
        if names != want:
            raise _fail(w, f"params must be {list(want)}, not {list(names)}")
        kw = dict(params)
        if op == "literal":
            v = kw["value"]
            if not (type(v) is Scalar and type(v.value) in PY_SCALAR_DTYPES):
                raise _fail(w, "value must be a Python scalar")
            if not (shape == () and dtype == PY_SCALAR_DTYPES[type(v.value)] and weak):
                raise _fail(w, f"a literal {type(v.value).__name__} is weak {PY_SCALAR_DTYPES[type(v.value)]}[], not "
                                f"{dtype}{list(shape)}")
            return Node(op, params, (), shape, dtype, True, name, loc)
        if op in ("placeholder", "variable"):
            if type(kw["name"]) is not str:
                raise _fail(w, f"the name param must be a string, not {_jtype(kw['name'])}")
            uid = kw["id"]
            # a loop body's own placeholders take negative ids, their positions (fgraph/control.py)
            if not (_is_int(uid) and -_MAX_ID <= uid <= _MAX_ID):
                raise _fail(w, f"id must be an int64, not {uid!r:.40}")
            self.max_id = max(self.max_id, uid)
        if op == "placeholder":
            try:
                return Node(op, params, (), shape, dtype, weak, name, loc)
            except FgraphError as e:
                raise _fail(w, str(e).split("\n")[0]) from None
        c = kw["value"]
        if type(c) is not Const:
            raise _fail(w, "value must be an array")
        arr = c.array
        if not (arr.shape == shape and arr.dtype == dtype):
            raise _fail(w, f"the array is {arr.dtype}{list(arr.shape)}, the "
                            f"node says {dtype}{list(shape)}")
        if weak:
            raise _fail(w, "a constant or variable cannot be weak")
        if arr.dtype.char != dtype.char:  # npy keeps 'q' (long long) as '<i8', read back as 'l': the saved code wins
            arr = arr.view(dtype)
            c = Const(arr)
            params = params[:-1] + (("value", c),)
        if op == "variable":
            return Node(op, params, (), shape, dtype, False, name, loc)
        node = constant_node(arr, name)  # a large constant's data handed to a Known, as any constant's
        return node if loc is None or node.where == loc else node.replace(where=loc)

    def dtype(self, code, w) -> np.dtype:
        if not (type(code) is list and len(code) == 2 and type(code[0]) is str and code[0] in DTYPE_CODES
                and code[1] in ("=", "|", "<", ">")):
            raise _fail(w, f"dtype must be [type code, byte order] of a bool, integer, float or complex, not "
                           f"{code!r:.80}")
        dt = np.dtype(code[0])
        return dt.newbyteorder(code[1]) if code[1] in "<>" else dt

    def value(self, v, depth: int, at: str):
        """One param value, through the whitelist of tags."""
        w = f"{self.where}: {at}"
        if depth > MAX_DEPTH:
            raise _fail(w, f"params nest more than {MAX_DEPTH} deep")
        t = type(v)
        if v is None or t is bool or t is int or t is str:
            return v
        if not (t is list and len(v) == 2 and type(v[0]) is str):
            raise _fail(w, f"a value must be null, a boolean, an integer, a string or a [tag, payload] pair, "
                           f"not {_jtype(v)}")
        tag, payload = v
        decode = _DECODERS.get(tag)
        if decode is None:
            raise _fail(w, f"unknown value tag {tag!r:.80} (known: {sorted(_DECODERS)})")
        return decode(self, payload, depth, at, w)


def _d_tuple(r, p, depth, at, w):
    if type(p) is not list:
        raise _fail(w, "a tuple's payload must be an array")
    return tuple([r.value(e, depth + 1, at) for e in p])


def _d_frozenset(r, p, depth, at, w):
    if type(p) is not list:
        raise _fail(w, "a frozenset's payload must be an array")
    items = [r.value(e, depth + 1, at) for e in p]
    try:
        out = frozenset(items)
    except TypeError:
        raise _fail(w, "a frozenset holds an unhashable value") from None
    if len(out) != len(items):
        raise _fail(w, "a frozenset holds a value twice")
    return out


def _bits(p, w) -> float:
    if not (type(p) is str and _HEX16.fullmatch(p) is not None):
        raise _fail(w, f"float bits must be 16 hex digits, not {p!r:.40}")
    return struct.unpack(">d", bytes.fromhex(p))[0]


def _d_float(r, p, depth, at, w):
    return _bits(p, w)


def _d_complex(r, p, depth, at, w):
    if not (type(p) is list and len(p) == 2):
        raise _fail(w, "a complex number's payload must be [real bits, imag bits]")
    return complex(_bits(p[0], w), _bits(p[1], w))


def _d_numpy(r, p, depth, at, w):
    if not (type(p) is list and len(p) == 2):
        raise _fail(w, "a NumPy scalar's payload must be [dtype, hex bytes]")
    dt = r.dtype(p[0], w)
    if not (type(p[1]) is str and len(p[1]) == 2 * dt.itemsize and _HEX.fullmatch(p[1]) is not None):
        raise _fail(w, f"a {dt} scalar must be {dt.itemsize} bytes as hex")
    return np.frombuffer(bytes.fromhex(p[1]), dt)[0]


def _d_scalar(r, p, depth, at, w):
    v = r.value(p, depth + 1, at)
    if not (v is None or type(v) in (bool, int, float, complex) or isinstance(v, np.generic)):
        raise _fail(w, f"a scalar literal must be a number or null, not {type(v).__name__}")
    return Scalar(v)


def _d_array(r, p, depth, at, w):
    return Const(r.arrays.get(p))


def _d_slice(r, p, depth, at, w):
    if not (type(p) is list and len(p) == 3):
        raise _fail(w, "a slice's payload must be [start, stop, step]")
    return slice(*(r.value(e, depth + 1, at) for e in p))


def _d_ellipsis(r, p, depth, at, w):
    if p is not None:
        raise _fail(w, "an ellipsis has a null payload")
    return Ellipsis


def _d_dtype(r, p, depth, at, w):
    return r.dtype(p, w)


def _d_graph(r, p, depth, at, w):
    if not (_is_int(p) and 0 <= p < len(r.graphs)):
        raise _fail(w, f"sub-graph {p!r:.40} is not an earlier entry of subgraphs "
                        f"(0..{len(r.graphs) - 1})")
    r.used_graphs.add(p)
    r.graph_refs += 1
    return r.graphs[p]


#: the whole vocabulary of tagged values: a tag not here is refused
_DECODERS = {"tuple": _d_tuple, "frozenset": _d_frozenset, "float": _d_float, "complex": _d_complex,
             "numpy": _d_numpy, "scalar": _d_scalar, "array": _d_array, "slice": _d_slice, "ellipsis": _d_ellipsis,
             "dtype": _d_dtype, "graph": _d_graph}


def _check_structure(s, n_leaves: int, w: str):
    """``s`` if it is a structure of ``tree.flatten`` with ``n_leaves``
    leaves (walked with a stack, not recursion)."""
    leaves = 0
    stack = [s]
    while stack:
        x = stack.pop()
        if x == LEAF and type(x) is str:
            leaves += 1
            continue
        if not (type(x) is tuple and len(x) == 3 and x[0] in ("dict", "list", "tuple")
                and type(x[2]) is tuple):
            raise _fail(w, f"not an outputs structure: {x!r:.80}")
        kind, meta, kids = x
        if kind == "dict":
            if not (type(meta) is tuple and len(meta) == len(kids)):
                raise _fail(w, "a dict's keys do not match its values")
            try:
                if len(set(meta)) != len(meta):
                    raise _fail(w, "a dict's keys repeat")
            except TypeError:
                raise _fail(w, "a dict key is unhashable") from None
        else:
            if not (_is_int(meta) and meta == len(kids)):
                raise _fail(w, f"a {kind}'s length does not match its items")
        stack.extend(kids)
    if leaves != n_leaves:
        raise _fail(w, f"the structure has {leaves} outputs, the graph {n_leaves}")
    return s
