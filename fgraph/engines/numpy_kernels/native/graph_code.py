"""A graph as one C function (:class:`GraphCode`): every value computed by
C loop nests, for the native loops (:mod:`.whole_loop`) and eager steps
(:mod:`.whole_step`).  No Python runs between its ops.

What can be native (anything else raises :class:`Unsupported`; the caller
then runs its compiled programs):

- values of bool, int32, int64, float32 or float64, each of at most
  ``MAX_VALUES`` elements (larger ones run faster as the programs' kernels,
  which share their work among threads);
- element-wise ops and fused groups with an exact inline C form (the table
  the fused kernels use, :mod:`fgraph.engines.c_exprs`: NumPy's values bit
  for bit), ``where`` and casts;
- views (``slice``, ``slice_axis``, ``transpose``, ``broadcast_to``;
  ``reshape`` of a value in memory): index arithmetic, never a copy;
- ``setitem`` with a basic key;
- reductions: ``max``/``min``/``any``/``all``, ``count_nonzero``, ``sum``/``prod`` of integers,
  and ``sum`` of floats over all axes or the last one, by NumPy's own
  pairwise summation (the same additions in the same order).

An element-wise value or view read once is computed where it is read,
inside its reader's loop nest (a stencil's four slices and its arithmetic
are one nest); the others (read twice, results, reductions, writes) are
stored, in the workspace or straight into a result's buffer.
"""
from __future__ import annotations

import math
import re

import numpy as np

from ....registry import get_attr
from ....symbol import topological
from ...c_exprs import CPU_QUIET
from .codegen import Plan, Unsupported, _CTYPE, _code, _ok, _runtime_dtype, _Val, rendering_for, target
from .runtime import address

#: the most elements of any value run natively (``python -m fgraph.bench loops`` measures it, 2 cores):
#: Newton's 30 steps run whole took 0.44-0.48x the compiled programs' time on 65,536 values and
#: 0.85-1.29x (five runs) on 262,144, where the programs' kernels share the work among threads
MAX_VALUES = 1 << 16

_VIEWS = frozenset(("slice", "slice_axis", "transpose", "broadcast_to", "reshape"))
#: inline ops whose element is not computed from their inputs' elements at its own index
_INDEXED = frozenset(("concatenate", "fused"))
_FILLED = frozenset(("zeros", "ones", "full"))  # the same value everywhere: a C constant
_REDUCTIONS = frozenset(("max", "min", "any", "all", "sum", "prod", "count_nonzero"))
_APART = frozenset(("concatenate", "setitem", "fused_reduce"))  # stored by loop nests of their own


class _Apart(Exception):
    """Values that cannot share a loop nest (``GraphCode._store_group``)."""
_ALIGN = 64
#: a weak (Python scalar) input's type, by its placeholder's dtype kind
_WEAK = {"b": bool, "i": int, "f": float}


class _Element(Plan):
    """Plan's rules (NEP 50 dtypes, casts, the exact C of each op) for one
    element of a loop nest, over reads this generator names: a buffer at an
    index, or a literal.  Ops that would call NumPy's loop are refused."""

    def __init__(self, weak_ints: dict):  # (no expression to plan: Plan.__init__ is not run)
        self.vals, self.calls, self._casts = [], [], {}
        self.sig, self.int_targets, self.reads, self._read_ids = [], [], [], {}
        self.literals: dict[int, object] = {}
        self.origins: dict[int, int] = {}  # load -> the weak input it reads
        self.weak_ints = weak_ints  # weak input -> the dtypes its Python int is cast to (checked per call)
        self.emitted = 0

    def read(self, text: str, kind, literal=None, origin=None) -> _Val:
        """The value at C expression ``text`` (of dtype, or Python scalar type, ``kind``)."""
        v = self._read_ids.get(text)
        if v is None:
            self.sig.append((kind, "c"))
            self.int_targets.append(set())
            self.reads.append(text)
            v = self._read_ids[text] = self._add(_Val("load", _runtime_dtype(kind), inp=len(self.sig) - 1))
            if literal is not None:
                self.literals[v.inp] = literal
            if origin is not None:
                self.origins[v.inp] = origin
        return v

    def _call(self, u, loop, ops, dt):
        raise Unsupported(f"{u.__name__} calls NumPy's loop")

    def _ref(self, v: _Val, seg_vals=None) -> str:
        if v.kind == "load":
            raw = self.reads[v.inp]
            return f"(uint8_t)({raw} != 0)" if v.dtype.kind == "b" else raw
        return f"v{v.id}"

    def statements(self) -> list[str]:
        """C declaring the values made since the last call."""
        out = []
        for v in self.vals[self.emitted:]:
            if v.kind == "inline":
                out.append(f"const {_CTYPE[_code(v.dtype)]} v{v.id} = " +
                           v.expr.format(*(self._ref(a) for a in v.args)) + ";")
        self.emitted = len(self.vals)
        for j, targets in enumerate(self.int_targets):  # a Python int must fit what NumPy casts it to
            for code in targets:
                if code[0] in "iu" and j in self.origins:
                    self.weak_ints.setdefault(self.origins[j], set()).add(code)
                elif code[0] in "iu":
                    info = np.iinfo(np.dtype(code))
                    if not info.min <= self.literals.get(j, 0) <= info.max:
                        raise Unsupported("a Python int out of its array's range (NumPy raises)")
        return out


def _c_literal(value) -> str:
    if isinstance(value, bool):
        return "(uint8_t)1" if value else "(uint8_t)0"
    if isinstance(value, int):
        if not -2 ** 63 < value < 2 ** 63:
            raise Unsupported("a Python int beyond int64")
        return f"(int64_t){value}LL"
    if isinstance(value, float):
        if math.isnan(value):
            return "(double)NAN"
        if math.isinf(value):
            return "(double)INFINITY" if value > 0 else "(double)(-INFINITY)"
        return f"(double){value.hex()}"
    raise Unsupported(f"a literal of type {type(value).__name__}")


def _strides(shape) -> list[int]:
    out, step = [], 1
    for d in reversed(shape):
        out.append(step)
        step *= d
    return out[::-1]


def _flat(idx, shape) -> str:
    terms = [i if s == 1 else f"{i} * {s}" for i, s, d in zip(idx, _strides(shape), shape) if d != 1 and i != "0"]
    return " + ".join(terms) or "0"


def _affine(start: int, step: int, i: str) -> str:
    if i == "0":
        return str(start)
    body = i if step == 1 else f"{step} * {i}"
    return body if start == 0 else f"({start} + {body})"


def _broadcast(idx: tuple, shape: tuple, to: tuple) -> tuple:
    """The index into a value of ``shape`` broadcast to ``to`` at ``to``'s ``idx``."""
    lead = len(to) - len(shape)
    return tuple("0" if d == 1 else idx[lead + k] for k, d in enumerate(shape))


def _keyed(key, idx: tuple) -> tuple:
    """The index into x of ``x[key]``'s element ``idx`` (a normalised basic key)."""
    out, k = [], 0
    for e in key:
        if e is None:
            k += 1
        elif type(e) is tuple:
            out.append(_affine(e[0], e[2], idx[k]))
            k += 1
        else:
            out.append(str(e))
    return tuple(out)


class _Nest:
    """C loops over ``shape`` (``i<depth + k>`` names axis k), closed by
    ``close``; ``inner``: the range (lo, hi) of the innermost loop, if not all."""

    def __init__(self, lines: list, shape: tuple, depth: int = 0, inner: tuple | None = None):
        self.lines, self.idx = lines, tuple(f"i{depth + k}" if d != 1 else "0" for k, d in enumerate(shape))
        self.opened, start = 0, len(lines)
        last = max((k for k, d in enumerate(shape) if d != 1), default=None)
        for k, d in enumerate(shape):
            if d != 1:
                lo, hi = inner if inner is not None and k == last else (0, d)
                if k == last:
                    lines.append("FG_IVDEP")
                lines.append(f"for (int64_t i{depth + k} = {lo}; i{depth + k} < {hi}; i{depth + k}++) {{")
                self.opened += 1
        lines.append("{")
        self.head = len(lines) - start  # the lines that open it

    def close(self):
        self.lines.append("}" * (self.opened + 1))


def _collapsed(body: list, nest: _Nest, shape) -> list | None:
    """The nest as one loop over all its elements, where every index in it
    is the element's own C-order position (full arrays read and written in
    step: ``pos`` of shape (8192, 2) is not two-element inner loops); None
    where some index is not (a slice, a broadcast)."""
    names = [i for i in nest.idx if i != "0"]
    if len(names) < 2:
        return None
    flat = _flat(nest.idx, shape)
    inside = [line.replace(f"[{flat}]", "[FG_AT]") for line in body[nest.head:-1]]
    if any(re.search(rf"\b{name}\b", line) for line in inside for name in names):
        return None
    return ["FG_IVDEP", f"for (int64_t i0 = 0; i0 < {math.prod(shape)}; i0++) {{", "{",
            *[line.replace("[FG_AT]", "[i0]") for line in inside], "}}"]


def _initial(kind: str, dt) -> str:
    """C for the value a reduction ``kind`` of dtype ``dt`` starts from."""
    if dt.kind == "b":
        return "1" if kind in ("all", "min") else "0"
    if kind in ("sum", "prod", "count_nonzero"):
        return "1" if kind == "prod" else "0"
    if dt.kind == "f":
        return "INFINITY" if kind == "min" else "-INFINITY"
    info = np.iinfo(dt)
    return f"(({_CTYPE[_code(dt)]}){info.max}LL)" if kind == "min" else f"(({_CTYPE[_code(dt)]})({info.min + 1}LL - 1))"


def _fold(kind: str, dt, x: str, acc: str) -> str:
    """C for ``acc`` after folding in element ``x`` (a name or a read)."""
    if kind == "count_nonzero":
        return f"{acc} + {x}"
    if dt.kind == "b" or kind in ("any", "all"):
        return f"(uint8_t)({acc} {'&' if kind in ('all', 'min') else '|'} ({x} != 0))"
    if kind in ("sum", "prod"):
        return f"{acc} {'+' if kind == 'sum' else '*'} {x}"
    if dt.kind == "f":  # NaN wins (quiet comparisons: no invalid flag NumPy would not raise)
        return f"(({target().ordered('>' if kind == 'max' else '<', x, acc)} | {target().isnan(x, dt)}) ? {x} : {acc})"
    return f"({x} {'>' if kind == 'max' else '<'} {acc} ? {x} : {acc})"


def _combine(kind: str, dt, part: str, at: str) -> str | None:
    """C folding the partial result ``part`` of a reduction ``kind`` into the
    value at address ``at`` atomically (threads fold their chunks' parts in
    any order), or None where the order shows: a float max or min keeps the
    first of two equal zeros, whose signs may differ."""
    if kind == "count_nonzero" or (kind == "sum" and dt.kind in "iu"):
        return f"__atomic_fetch_add({at}, {part}, __ATOMIC_RELAXED);"
    if dt.kind == "b":
        return f"__atomic_fetch_{'and' if kind in ('all', 'min') else 'or'}({at}, {part}, __ATOMIC_RELAXED);"
    if dt.kind not in "iu" or kind not in ("prod", "max", "min"):
        return None
    new = f"cur_ * {part}" if kind == "prod" else _fold(kind, dt, part, "cur_")
    return (f"{{ {_CTYPE[_code(dt)]} cur_ = __atomic_load_n({at}, __ATOMIC_RELAXED), new_; "
            f"do new_ = {new}; while (!__atomic_compare_exchange_n({at}, &cur_, new_, 0, __ATOMIC_RELAXED, "
            "__ATOMIC_RELAXED)); }")


def _region(n) -> tuple:
    """The shape of the region basic setitem ``n`` writes (its whole shape
    for a key of None; a key's ints drop their axes, a None adds one)."""
    key = n.param("key")
    return n.shape if key is None else tuple(1 if e is None else len(range(*e)) for e in key
                                             if e is None or type(e) is tuple)


def _last_reads(order: list, outputs) -> dict:
    """id(node) -> the position of its last reader in ``order`` (a view
    passes on its own readers' positions: it is read where they are);
    a result's is past the end."""
    at = {id(n): k for k, n in enumerate(order)}
    last: dict = {id(o): len(order) for o in outputs}
    for n in reversed(order):
        mine = last.get(id(n), -1) if n.op in _VIEWS else at[id(n)]
        for x in n.inputs:
            if mine > last.get(id(x), -1):
                last[id(x)] = mine
    return last


class GraphCode:
    """One graph as ``static void NAME(char *const *in, char *const *k,
    char *const *out, char *ws)``: ``in`` its inputs' data, ``k`` its
    constants' (``constants``, in order), ``out`` its results' buffers,
    ``ws`` ``workspace`` bytes for the values it stores a trip."""

    def __init__(self, graph, name: str, max_values: int | None = None, quiet: bool = False):
        """``quiet``: ordered float comparisons by the values' bits (``FG_QCMP``),
        which raise no flag on a NaN however the compiler vectorises them."""
        with rendering_for(CPU_QUIET if quiet else target()):
            self._generate(graph, name, max_values)

    def _generate(self, graph, name: str, max_values: int | None):
        # (MAX_VALUES read now, not when the class was made: a benchmark varies it)
        self.graph, self.name = graph, name
        self.max_values = MAX_VALUES if max_values is None else max_values
        order = topological(graph.outputs)
        self.order = order
        self._inputs = inputs = {id(p): j for j, p in enumerate(graph.inputs)}
        self.weak_ints: dict = {}  # weak int input -> the dtypes NumPy casts it to: it must fit them
        for n in order:
            self._check(n)
        # reads through views: a view read twice reads what it views twice; a reshape reads memory (a
        # view reshaped is stored first)
        uses = {id(o): 2 for o in graph.outputs}
        in_memory = {id(n.inputs[0]) for n in order if n.op == "reshape" or self._pairwise_sum(n)}
        self.helpers: set = set()  # the pairwise sums' C, one a dtype
        self.c_inputs: set = set()  # inputs a float sum depends on: C-contiguous, or NumPy's order differs
        for n in reversed(order):
            through = uses.get(id(n), 0) if n.op in _VIEWS and n.op != "reshape" else 1
            for x in n.inputs:
                uses[id(x)] = uses.get(id(x), 0) + through
        self.home: dict = {}  # id(node) -> the C pointer to its stored values
        # accumulator -> (its result's C array, C type, initial value, C adding a partial one to the result
        # atomically, or None: a float max/min, whose zero's sign depends on the order) (graph_threads.py)
        self.folds: dict = {}
        self._one: dict = {}  # id(input) -> the C local holding its one value
        # the innermost loop's index, the cuts concatenates ask of it, and the part being made (_nest_values)
        self._innermost, self._cuts, self._segment = None, set(), None
        self.constants: list = []
        self.decls: list[str] = []
        self.workspace = 0
        self._scratch: set = set()  # values stored in the workspace
        self._over: set = set()  # writes done in their target's own storage (``_writes_over``)
        self._last_read = _last_reads(order, graph.outputs)
        self._readers: dict = {}  # id(node) -> the nodes that read it
        for n in order:
            for x in n.inputs:
                self._readers.setdefault(id(x), []).append(n)
        first = {}  # id(result) -> its first position among the results
        for j, o in enumerate(graph.outputs):
            first.setdefault(id(o), j)
        for k, n in enumerate(order):
            if n.op == "placeholder":
                self._home(n, k, f"in[{inputs[id(n)]}]", const=True)
            elif n.op == "constant":
                self.constants.append(n.param("value"))
                self._home(n, k, f"k[{len(self.constants) - 1}]", const=True)
            elif n.op == "literal":
                continue
            elif id(n) in first:
                self._home(n, k, f"out[{first[id(n)]}]")
            elif n.op == "setitem" and self._writes_over(n, k, order):
                self.home[id(n)] = self.home[id(n.inputs[0])]
                self._over.add(id(n))
                self._scratch.add(id(n))
            elif n.op in _REDUCTIONS or n.op in ("setitem", "fused_reduce") or id(n) in in_memory or (
                    n.op not in _VIEWS and uses.get(id(n), 0) > 1) or (n.op == "concatenate" and not self._reads(n)):
                self._home(n, k, f"ws + {self.workspace}")
                self.workspace += -(-n.nbytes // _ALIGN) * _ALIGN
                self._scratch.add(id(n))
        if any(n.op == "reshape" and id(n.inputs[0]) not in self.home for n in order):
            raise Unsupported("a reshape of a literal")
        self.lines: list[str] = []
        group: list = []  # consecutive element-wise values of one shape, stored by one loop nest
        for n in order:
            if id(n) in self.home and n.op not in ("placeholder", "constant"):
                if n.op not in _APART and n.op not in _REDUCTIONS:
                    if group and group[0].shape != n.shape:
                        self._store_group(group)
                        group = []
                    group.append(n)
                    continue
                if group and self._folds_whole(n, group[0].shape):  # folded in the same pass
                    group.append(n)
                    continue
                self._store_group(group)
                group = []
                self._store(n)
        self._store_group(group)
        for j, o in enumerate(graph.outputs):  # results not computed into their buffer: inputs, literals, repeats
            if o.op in ("placeholder", "constant", "literal") or first[id(o)] != j:
                self._copy(o, f"(({_CTYPE[_code(o.dtype)]} *)out[{j}])")

    # -- what is supported, and where values live
    def _check(self, n):
        if n.op != "literal" and not _ok(n.dtype):
            raise Unsupported(f"{n.op} gives {n.dtype}")
        if n.size > self.max_values:
            raise Unsupported(f"{n.op} has {n.size} elements (threaded kernels win)")
        if n.op == "placeholder" and n.weak and (n.shape != () or n.dtype.kind not in _WEAK):
            raise Unsupported(f"a weak input of {n.dtype}{list(n.shape)}")
        if n.op in ("placeholder", "constant", "literal", "fused") or n.op in _VIEWS:
            return
        if n.op in _FILLED:
            self._fill_value(n)
            return
        if n.op == "concatenate":
            if any(x.dtype != n.dtype for x in n.inputs):
                raise Unsupported("a concatenate that casts")
            return
        if n.op == "setitem":
            if n.param("adv") is not None or len(n.inputs) != 2:
                raise Unsupported("setitem with an advanced key")
            return
        if n.op in _REDUCTIONS or n.op == "fused_reduce":
            self._reduction(n)
            return
        if not get_attr(n.op, "elementwise", False):
            raise Unsupported(f"{n.op} has no native loop form")

    def _reduction(self, n) -> tuple:
        """(kind, axes, keepdims, the reduced value's shape)."""
        if n.op == "fused_reduce":
            kind, shape = n.param("reduce"), n.param("shape")
            if n.param("dtype") is not None:
                raise Unsupported("a reduction with a dtype")
        else:
            kind, shape = n.op, n.inputs[0].shape
            extra = {k: v for k, v in n.params if k not in ("axis", "keepdims") and v is not None}
            if extra:
                raise Unsupported(f"{n.op} with {sorted(extra)}")
        if kind not in _REDUCTIONS:
            raise Unsupported(f"reduction {kind}")
        axis = n.param("axis")
        axes = tuple(range(len(shape))) if axis is None else tuple(a % len(shape) for a in np.atleast_1d(axis))
        if kind == "prod" and n.dtype.kind not in "iub":
            raise Unsupported("a float prod (NumPy's order of multiplications)")
        if kind == "sum" and n.dtype.kind not in "iub":
            if n.dtype.kind != "f" or axes not in (tuple(range(len(shape))), (len(shape) - 1,)):
                raise Unsupported("a float sum over other axes than all or the last (NumPy's order)")
            if (n.op == "sum" and n.inputs[0].op in _VIEWS and n.inputs[0].ndim != 1) or \
                    n.param("dtype") not in (None, n.dtype):
                raise Unsupported("a float sum of a view of several axes, or in another dtype (NumPy's order)")
        if kind in ("max", "min") and any(shape[a] == 0 for a in axes):
            raise Unsupported(f"{kind} of nothing (NumPy raises)")
        return kind, axes, bool(n.param("keepdims")), shape

    def _writes_over(self, n, k: int, order) -> bool:
        """Whether setitem ``n`` (at ``k``) may write into its target's own
        workspace instead of a copy of it: nothing reads the target after
        ``n``, and the value written reads it only through a slice of n's own
        key, element for element (``a[1:, :] |= b``: each element is read
        where it is then written, in the same trip), or not at all (another
        index of it may be overwritten first).  Saves a pass copying the
        target: four of bfs's ten, its frontier grown by four such writes."""
        x, v = n.inputs
        if id(x) not in self._scratch or self._last_read.get(id(x)) != k:
            return False
        key, region = n.param("key"), _region(n)
        # what v computes inline, each with whether it is computed at the region's own index
        stack, seen = [(v, v.shape == region)], set()
        while stack:
            y, aligned = stack.pop()
            if y is x:
                return False
            if (id(y), aligned) in seen or (id(y) in self.home and y.op not in _VIEWS):
                continue
            seen.add((id(y), aligned))
            if y.op == "slice" and y.inputs[0] is x:
                if aligned and key is not None and y.param("key") == key:
                    continue  # read at the index it is written
                return False
            aligned = aligned and y.op not in _VIEWS and y.op not in _INDEXED
            stack.extend((i, aligned and i.shape == y.shape) for i in y.inputs)
        return True

    def _reads(self, n) -> bool:
        """Whether every piece of concatenate ``n`` is a plain read (views of
        a leaf or of a stored value): then it is read in place, each element
        from its piece (``np.roll`` stores nothing), not stored first."""
        for x in n.inputs:
            while x.op in _VIEWS and x.op != "reshape":
                x = x.inputs[0]
            if not (x.op in ("placeholder", "constant") or id(x) in self.home):
                return False
        return True

    def _home(self, n, k, where, const=False):
        name, ct = f"m{k}", ("const " if const else "") + _CTYPE[_code(n.dtype)]
        # restrict: no two pointers here share memory that is written (inputs are only read, and every
        # stored value, result and carry buffer has memory of its own), so loops vectorise
        self.decls.append(f"{ct} *restrict {name} = ({ct} *)({where});")
        self.home[id(n)] = name
        if const and math.prod(n.shape) == 1:
            # an input's one value (a Python scalar of the step) in a local, read once: GCC reloads it from
            # memory every element otherwise, as a uint8_t store may alias it (particles' step: 829 -> 456 us)
            self.decls.append(f"{ct} {name}_0 = {name}[0];")
            self._one[id(n)] = f"{name}_0"

    # -- values at an index
    def _value(self, el: _Element, node, idx: tuple) -> _Val:
        """``node`` at index ``idx`` (C expressions), read where stored, else
        computed from its inputs (iteratively: inlined chains may be long)."""
        memo = self._memo
        stack = [(node, idx)]
        while stack:
            n, ix = stack[-1]
            key = (id(n), ix)
            if key in memo:
                stack.pop()
                continue
            if id(n) in self.home:  # (a weak input: a Python scalar, promoted as NEP 50 says)
                weak = n.op == "placeholder" and n.weak
                memo[key] = el.read(self._one.get(id(n)) or f"{self.home[id(n)]}[{_flat(ix, n.shape)}]",
                                    _WEAK[n.dtype.kind] if weak else n.dtype,
                                    origin=self._inputs[id(n)] if weak else None)
                stack.pop()
                continue
            if n.op == "reshape":  # its input is in memory, in the same order
                memo[key] = el.read(f"{self.home[id(n.inputs[0])]}[{_flat(ix, n.shape)}]", n.dtype)
                stack.pop()
                continue
            if n.op in _FILLED:
                memo[key] = el.read(self._fill_value(n), n.dtype)
                stack.pop()
                continue
            if n.op == "literal":
                v = getattr(n.param("value"), "value", n.param("value"))
                if isinstance(v, np.generic):  # a NumPy scalar: its own dtype, not weak
                    kind, v = v.dtype, v.item()
                    text = f"(({_CTYPE[_code(kind)]}){_c_literal(v)})" if _ok(kind) else _c_literal(None)
                else:
                    kind, text = type(v), _c_literal(v)
                memo[key] = el.read(text, kind, literal=v)
                stack.pop()
                continue
            if n.op == "concatenate":
                deps = self._pieces(n, ix)
                todo = [d for d in deps if (id(d[0]), d[1]) not in memo]
                if todo:
                    stack.extend(todo)
                    continue
                memo[key] = self._pick(el, n, ix, [memo[(id(x), i)] for x, i in deps])
                stack.pop()
                continue
            deps = self._operands(n, ix)
            todo = [d for d in deps if (id(d[0]), d[1]) not in memo]
            if todo:
                stack.extend(todo)
                continue
            memo[key] = self._apply(el, n, [memo[(id(x), i)] for x, i in deps])
            stack.pop()
        return memo[(id(node), idx)]

    def _operands(self, n, idx: tuple) -> list:
        """(input, index) pairs that ``n``'s element ``idx`` is computed from."""
        if n.op == "slice":
            return [(n.inputs[0], _keyed(n.param("key"), idx))]
        if n.op == "slice_axis":
            axis, start, step = n.param("axis"), n.param("start"), n.param("step")
            return [(n.inputs[0], idx[:axis] + (_affine(start, step, idx[axis]),) + idx[axis + 1:])]
        if n.op == "transpose":
            axes = n.param("axes")
            out = [None] * len(idx)
            for k, a in enumerate(axes):
                out[a] = idx[k]
            return [(n.inputs[0], tuple(out))]
        if n.op == "broadcast_to":
            x = n.inputs[0]
            return [(x, _broadcast(idx, x.shape, n.shape))]
        shape = n.param("shape") if n.op == "fused" else n.shape
        return [(x, _broadcast(idx, x.shape, shape)) for x in n.inputs]

    def _pieces(self, n, idx: tuple) -> list:
        """(piece, index) of an inline concatenate's element ``idx``: the
        one piece it lies in where the innermost loop runs within one
        (``_segment``), else every piece, read at the index clamped into it
        (each read stays in bounds; ``_pick`` keeps the one in range), and
        the pieces' ends asked for as the innermost loop's cuts."""
        axis, at, out = n.param("axis"), 0, []
        segment = self._segment
        along = segment is not None and idx[axis] == segment[0]
        if idx[axis] == self._innermost and not along:
            ends = [sum(x.shape[axis] for x in n.inputs[:k + 1]) for k in range(len(n.inputs))]
            self._cuts.update(ends[:-1])
        for x in n.inputs:
            d = x.shape[axis]
            if along and at <= segment[1] and segment[2] <= at + d:  # the loop stays in this piece
                return [(x, idx[:axis] + (_affine(-at, 1, idx[axis]),) + idx[axis + 1:])]
            i = f"FG_CLAMP({idx[axis]} - {at}, {d - 1})" if len(n.inputs) > 1 else idx[axis]
            out.append((x, idx[:axis] + (i,) + idx[axis + 1:]))
            at += d
        return out

    @staticmethod
    def _pick(el: _Element, n, idx: tuple, values: list) -> _Val:
        if len(values) == 1:  # (one piece: the loop runs within it)
            return values[0]
        axis, ends, at = n.param("axis"), [], 0
        for x in n.inputs[:-1]:
            at += x.shape[axis]
            ends.append(at)
        expr = f"{{{len(values) - 1}}}"
        for k in reversed(range(len(ends))):  # piece k where idx < its end (the ends ascend)
            expr = f"({idx[axis]} < {ends[k]} ? {{{k}}} : {expr})"
        v = _Val("inline", n.dtype, expr=expr, args=tuple(values))
        return el._add(v)

    def _apply(self, el: _Element, n, args: list) -> _Val:
        if n.op in _VIEWS:
            return args[0]
        if n.op in _FILLED:  # (stored: read twice)
            return el.read(self._fill_value(n), n.dtype)
        if n.op == "fused":
            return self._expression(el, n.param("expr"), args)
        return el._op(n.op, args, dict(n.params), n.dtype)

    @staticmethod
    def _expression(el: _Element, expr: tuple, args: list) -> _Val:
        res: list = []
        for op, ins, params, dt in expr:
            dt = np.dtype(dt)
            if not _ok(dt):
                raise Unsupported(f"{op} gives {dt}")
            res.append(el._op(op, [args[-1 - a] if a < 0 else res[a] for a in ins], dict(params), dt))
        return res[-1]

    # -- storing values
    def _nest_values(self, shape, fill):
        """A loop nest over ``shape``: ``fill(element, idx)`` gives the
        (value, C target) pairs written at each index.  Where the innermost
        index crosses pieces of a concatenate read in place (``np.roll``),
        the innermost loop is split at their ends, so each part reads one
        piece at a plain index (no clamp, no choice: it vectorises)."""
        last = max((k for k, d in enumerate(shape) if d != 1), default=None)
        self._innermost = None if last is None else f"i{last}"
        self._cuts, self._segment = set(), None
        body: list = []
        self._nest_body(body, shape, fill, None)
        cuts = sorted(c for c in self._cuts if 0 < c < (shape[last] if last is not None else 0))
        if cuts:
            ends = [0, *cuts, shape[last]]
            body = []
            for lo, hi in zip(ends, ends[1:]):
                self._segment = (self._innermost, lo, hi)
                self._nest_body(body, shape, fill, (lo, hi))
            self._segment = None
        self.lines += body
        self._innermost = None

    def _nest_body(self, lines: list, shape, fill, inner):
        body: list = []
        nest = _Nest(body, shape, inner=inner)
        el, self._memo = _Element(self.weak_ints), {}
        pairs = [(target, v) for v, target in fill(el, nest.idx)]
        body += el.statements()
        body += [f"{target} = {v if isinstance(v, str) else el._ref(v)};" for target, v in pairs]
        nest.close()
        lines += (_collapsed(body, nest, shape) if inner is None else None) or body

    @staticmethod
    def _fill_value(n) -> str:
        """C for the value ``zeros``/``ones``/``full`` fill ``n`` with."""
        if n.op == "full" and (n.inputs or n.param("fill_value") is None):
            raise Unsupported("full of an array")
        value = {"zeros": 0, "ones": 1}.get(n.op)
        if value is None:
            value = n.param("fill_value").array.astype(n.dtype).item()
        return f"(({_CTYPE[_code(n.dtype)]}){_c_literal(type(value)(value) if n.dtype.kind != 'b' else bool(value))})"

    def _store_group(self, group: list) -> None:
        """Element-wise values of one shape stored by one loop nest (one
        pass over memory; a value the next one reads is in a register),
        where each later one reads the earlier ones at its own index only;
        else each by its own nest."""
        if len(group) < 2:
            for n in group:
                self._store(n)
            return
        homes = [self.home[id(n)] for n in group]
        shape = group[0].shape
        folds = [n for n in group if n.op in _REDUCTIONS]  # reductions of all of a value: accumulators
        members = {id(n) for n in group}
        unstored = {id(n) for n in group if self._read_here_only(n, members, shape)}

        def fill(el, idx):
            pairs = []
            for n, home in zip(group, homes):
                if n.op in _REDUCTIONS:
                    x = self._folded(el, n, n.op, idx, shape)
                    pairs.append((_fold(n.op, n.dtype, el._ref(x), f"acc_{home}"), f"acc_{home}"))
                    continue
                v = el._cast(self._compute(el, n, idx), n.dtype)
                self._memo[(id(n), idx)] = v  # read at this index: this value, before it is stored
                if id(n) not in unstored:
                    pairs.append((v, f"(({_CTYPE[_code(n.dtype)]} *){home})[{_flat(idx, n.shape)}]"))
            if any(text.startswith(f"{home}[") for text in el.reads for home in homes):
                raise _Apart  # one reads another at some other index (or a reduction not yet complete)
            return pairs
        start = len(self.lines)
        try:
            self._nest_values(shape, fill)
        except _Apart:
            for n in group:
                self._store(n)
            return
        self.lines[start:start] = [f"{_CTYPE[_code(n.dtype)]} acc_{self.home[id(n)]} = {_initial(n.op, n.dtype)};"
                                   for n in folds]
        self.lines += [f"(({_CTYPE[_code(n.dtype)]} *){self.home[id(n)]})[0] = acc_{self.home[id(n)]};"
                       for n in folds]
        for n in folds:
            home, ct = self.home[id(n)], _CTYPE[_code(n.dtype)]
            self.folds[f"acc_{home}"] = (f"(({ct} *){home})", ct, _initial(n.op, n.dtype),
                                         _combine(n.op, n.dtype, f"acc_{home}", f"&(({ct} *){home})[0]"))

    def _read_here_only(self, n, members: set, shape) -> bool:
        """Whether workspace value ``n`` of a group stored by one nest is read
        only in that nest, at its own index: by members of the group, or by
        values computed inline for them.  It then lives in a register and
        is never written to memory (particles' step stored four such
        arrays: 6 of its 14 MB of traffic)."""
        if id(n) not in self._scratch or id(n) in self._over:
            return False
        stack, seen = [n], set()
        while stack:
            x = stack.pop()
            for r in self._readers.get(id(x), ()):
                if id(r) in seen:
                    continue
                seen.add(id(r))
                if r.op in _VIEWS or r.op in _APART or r.op == "concatenate":
                    return False  # read at another index, or by a nest of its own
                if id(r) in members:
                    continue  # (a folded reduction reads all of x, of the group's shape, at its index)
                if id(r) in self.home or r.shape != shape or r.op in _REDUCTIONS:
                    return False  # read by another nest, or broadcast
                stack.append(r)  # computed inline where it is read: its readers must be here too
        return True

    def _folds_whole(self, n, shape) -> bool:
        """Whether reduction ``n`` folds all of a value of ``shape`` in any
        order (not a float sum: NumPy's pairwise order needs it in memory)."""
        if n.op not in _REDUCTIONS or self._pairwise_sum(n) or n.inputs[0].shape != shape:
            return False
        kind, axes, _, _ = self._reduction(n)
        return axes == tuple(range(len(shape)))

    def _store(self, n):
        home, ct = self.home[id(n)], _CTYPE[_code(n.dtype)]
        target = f"(({ct} *){home})"
        if n.op == "concatenate":  # each piece copied to its place along the axis
            axis, at = n.param("axis"), 0
            for x in n.inputs:
                def fill(el, idx, x=x, at=at):
                    to = idx[:axis] + (_affine(at, 1, idx[axis]),) + idx[axis + 1:]
                    return [(self._value(el, x, idx), f"{target}[{_flat(to, n.shape)}]")]
                self._nest_values(x.shape, fill)
                at += x.shape[axis]
            return
        if n.op == "setitem":
            x, v = n.inputs
            key = n.param("key")
            if id(n) not in self._over:
                self._copy(x, target)
            region = _region(n)

            def fill(el, idx):
                at = idx if key is None else _keyed(key, idx)
                return [(el._cast(self._value(el, v, _broadcast(idx, v.shape, region)), n.dtype),
                         f"{target}[{_flat(at, n.shape)}]")]
            self._nest_values(region, fill)
        elif n.op in _REDUCTIONS or n.op == "fused_reduce":
            self._reduce(n, target)
        else:
            self._nest_values(n.shape, lambda el, idx: [(el._cast(self._compute(el, n, idx), n.dtype),
                                                              f"{target}[{_flat(idx, n.shape)}]")])

    def _compute(self, el, n, idx):
        args = [self._value(el, x, i) for x, i in self._operands(n, idx)]
        return self._apply(el, n, args)

    def _copy(self, x, target):
        self._nest_values(x.shape, lambda el, idx: [(el._cast(self._value(el, x, idx), x.dtype),
                                                           f"{target}[{_flat(idx, x.shape)}]")])

    @staticmethod
    def _pairwise_sum(n) -> bool:
        return (n.op == "sum" or (n.op == "fused_reduce" and n.param("reduce") == "sum")) and n.dtype.kind == "f"

    def _reduce(self, n, target):
        kind, axes, keepdims, shape = self._reduction(n)
        if self._pairwise_sum(n):
            return self._sum_pairwise(n, target, axes, shape)
        kept = tuple(1 if a in axes else d for a, d in enumerate(shape))
        inner = tuple(d if a in axes else 1 for a, d in enumerate(shape))
        dt = n.dtype
        outer = _Nest(self.lines, kept)
        self.lines.append(f"{_CTYPE[_code(dt)]} acc = {_initial(kind, dt)};")
        nest = _Nest(self.lines, inner, depth=len(shape))
        idx = tuple(o if a not in axes else i for a, (o, i) in enumerate(zip(outer.idx, nest.idx)))
        el, self._memo = _Element(self.weak_ints), {}
        x = self._folded(el, n, kind, idx, shape)
        self.lines += el.statements()
        self.lines.append(f"acc = {_fold(kind, dt, el._ref(x), 'acc')};")
        nest.close()
        out_idx = outer.idx if keepdims else tuple(i for a, i in enumerate(outer.idx) if a not in axes)
        self.lines.append(f"{target}[{_flat(out_idx, n.shape)}] = acc;")
        outer.close()

    def _folded(self, el, n, kind: str, idx: tuple, shape: tuple) -> _Val:
        """Reduction ``n``'s input at ``idx`` (of the reduced ``shape``), in
        the type it is folded in."""
        if n.op == "fused_reduce":
            args = [self._value(el, x, _broadcast(idx, x.shape, shape)) for x in n.inputs]
            v = self._expression(el, n.param("expr"), args)
        else:
            v = self._value(el, n.inputs[0], idx)
        dt = n.dtype
        if kind in ("any", "all", "count_nonzero") or dt.kind == "b":
            return el._cast(v, np.dtype(bool))
        if kind in ("sum", "prod"):
            return el._cast(v, dt)
        if _code(v.dtype) != _code(dt):
            raise Unsupported(f"{kind} changes the dtype")
        return v

    def _sum_pairwise(self, n, target, axes, shape):
        """A float sum as NumPy adds: pairwise (``fg_pw``) over each run of
        reduced values in C order, from 0 (so -0.0 sums to 0.0, as NumPy's
        do).  The values are in memory: the input stored, or a fused
        expression written to the workspace first."""
        dt, ct = n.dtype, _CTYPE[_code(n.dtype)]
        view = n.op == "sum" and n.inputs[0].op in _VIEWS  # 1-D: NumPy adds its elements in order, as a copy's
        if not view:
            self._c_ordered(n)
        if n.op == "fused_reduce" or view:  # the values written to the workspace first
            src = f"f{len(self.lines)}"
            self.decls.append(f"{ct} *restrict {src} = ({ct} *)(ws + {self.workspace});")
            self.workspace += -(-math.prod(shape) * dt.itemsize // _ALIGN) * _ALIGN
            if view:
                if _code(n.inputs[0].dtype) != _code(dt):
                    raise Unsupported("a float sum changing the dtype")
                self._nest_values(shape, lambda el, idx: [(self._value(el, n.inputs[0], idx), f"{src}[{idx[0]}]")])
            else:
                expr = n.param("expr")
                self._nest_values(shape, lambda el, idx: [(el._cast(self._expression(el, expr, [
                    self._value(el, x, _broadcast(idx, x.shape, shape)) for x in n.inputs]), dt),
                    f"{src}[{_flat(idx, shape)}]")])
        else:
            src = self.home[id(n.inputs[0])]
            if _code(n.inputs[0].dtype) != _code(dt):
                raise Unsupported("a float sum changing the dtype")
        inner = math.prod(shape[a] for a in axes)
        rows = math.prod(shape) // inner if inner else math.prod(d for a, d in enumerate(shape) if a not in axes)
        self.helpers.add(ct)
        self.lines.append(f"for (int64_t r = 0; r < {rows}; r++) "
                          f"{target}[r] = ({ct})0 + fg_pw_{ct}({src} + r * {inner}, {inner});")

    def _c_ordered(self, n) -> None:
        """Require what NumPy's sum of ``n`` reads to be laid out in C order
        (its additions follow the memory): no transpose below it, inputs
        and constants C-contiguous (``c_inputs``, checked at each call)."""
        stack, seen = [n.inputs[0]] if n.op == "sum" else list(n.inputs), set()
        inputs = {id(p): j for j, p in enumerate(self.graph.inputs)}
        while stack:
            x = stack.pop()
            if id(x) in seen:
                continue
            seen.add(id(x))
            if x.op == "transpose":
                raise Unsupported("a float sum of transposed values (NumPy adds in memory order)")
            if x.op == "placeholder":
                self.c_inputs.add(inputs[id(x)])
            elif x.op == "constant" and not x.param("value").array.flags.c_contiguous:
                raise Unsupported("a float sum of a constant not in C order")
            stack.extend(x.inputs)

    def source(self) -> str:
        body = ["  " + line for line in self.decls + self.lines]
        return "\n".join([f"static void {self.name}(char *const *in, char *const *k, char *const *out, char *ws) {{",
                          "  (void)in; (void)k; (void)out; (void)ws;"] + body + ["}", ""])


#: why the latest graphs were not made native (newest last; for a user asking why a loop or step is slow)
DECLINED: list = []


def declined(what: str, e: Unsupported) -> None:
    DECLINED.append(f"{what}: {e}")
    del DECLINED[:-32]


def sources(*codes: GraphCode) -> str:
    """The C of ``codes``, after the headers and helpers they use (each once)."""
    helpers = sorted(set().union(*(c.helpers for c in codes)))
    return "\n".join(_PRELUDE + [_PAIRWISE.replace("T", ct) for ct in helpers] + [c.source() for c in codes])


_PRELUDE = ["#include <stdint.h>", "#include <math.h>", "#include <fenv.h>",
            "#define FG_CLAMP(i, hi) ((i) < 0 ? 0 : (i) > (hi) ? (hi) : (i))",
            "/* the IEEE flags fetestexcept gave, as runtime.numpy_reports reads them */",
            "#define FG_IEEE(f) (((f) & FE_INVALID ? 1 : 0) | ((f) & FE_DIVBYZERO ? 2 : 0) "
            "| ((f) & FE_OVERFLOW ? 4 : 0) | ((f) & FE_UNDERFLOW ? 8 : 0))",
            "#include <string.h>",
            "/* no loop-carried dependence through memory: every value stored has memory of its own (the pointers",
            "   are restrict), but GCC ignores restrict on locals and gives up past ten run-time alias checks (an",
            "   Adam step of five results ran unvectorised: 2.2 ms, with this 0.94) */",
            "#if defined(__clang__)",
            "#define FG_IVDEP _Pragma(\"clang loop vectorize(assume_safety)\")",
            "#elif defined(__GNUC__)",
            "#define FG_IVDEP _Pragma(\"GCC ivdep\")",
            "#else",
            "#define FG_IVDEP",
            "#endif",
            "/* quiet ordered comparisons (c_exprs.CPU_QUIET): both operands ordered (== is quiet), then their",
            "   bits as sign-magnitude integers; vectorised, they raise no flag on a NaN (GCC 12's builtins do) */",
            "static inline int64_t fg_okey_d(double x) { int64_t k; memcpy(&k, &x, 8); "
            "return k < 0 ? -(k & INT64_MAX) : k; }",
            "static inline int32_t fg_okey_f(float x) { int32_t k; memcpy(&k, &x, 4); "
            "return k < 0 ? -(k & INT32_MAX) : k; }",
            "#define FG_OKEY(x) _Generic((x), float: fg_okey_f, default: fg_okey_d)(x)",
            "#define FG_QCMP(a, op, b) ((uint8_t)(((a) == (a)) & ((b) == (b)) & "
            "(FG_OKEY((__typeof__((a) + (b)))(a)) op FG_OKEY((__typeof__((a) + (b)))(b)))))"]


# ---------------------------------------------------------------- calling a GraphCode's function

def operand(x, shape: tuple, dtype, c_order: bool):
    """``x`` as the generated code reads it (C-contiguous, aligned), or
    None: not the shape and dtype compiled, or not in C order where a float
    sum depends on that (``c_order``: its index is in ``c_inputs``)."""
    a = np.asarray(x)
    if a.shape != shape or a.dtype != dtype or (c_order and not a.flags.c_contiguous):
        return None
    if not (a.flags.c_contiguous and a.flags.aligned):
        a = np.ascontiguousarray(a) if a.ndim else a.copy()
    return a


def constant_arrays(code: GraphCode) -> list:
    """The data of ``code``'s constants, as its ``k`` pointers read it."""
    out = []
    for c in code.constants:
        a = c.array
        out.append(a if a.flags.c_contiguous and a.flags.aligned else np.ascontiguousarray(a))
    return out


def workspace(nbytes: int):
    """(buffer, its first address aligned to ``_ALIGN``) for ``nbytes`` of workspace."""
    ws = np.empty(nbytes + _ALIGN, np.uint8)
    at = address(ws)
    return ws, at + (-at) % _ALIGN


#: NumPy's pairwise summation (``pairwise_sum`` in its loops_utils.h), the same additions in the same order:
#: below 8 values one by one from -0.0, up to 128 in 8 partial sums, above that split in halves at a multiple
#: of 8 (``T``: the C type; the name is made unique per type)
_PAIRWISE = """
static T fg_pw_T(const T *a, int64_t n) {
  if (n < 8) {
    T res = -0.0;
    for (int64_t i = 0; i < n; i++) res += a[i];
    return res;
  }
  if (n <= 128) {
    T r[8];
    int64_t i;
    for (int j = 0; j < 8; j++) r[j] = a[j];
    for (i = 8; i < n - (n % 8); i += 8)
      for (int j = 0; j < 8; j++) r[j] += a[i + j];
    T res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; i++) res += a[i];
    return res;
  }
  int64_t n2 = n / 2;
  n2 -= n2 % 8;
  return fg_pw_T(a, n2) + fg_pw_T(a + n2, n - n2);
}
"""
