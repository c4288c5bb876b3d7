"""Which ops run on the CuPy engine, and how: the coverage table.

Every op gets one route, registered like every engine's kernels with
``override("cupy", op, ...)`` (by ``dispatch``, ``cupy`` or ``unsupported``
below); the audit facts are declared op attributes (``cupy_route``,
``cupy_note``, ``cupy_needs``, ``cupy_refuse``), which ``COVERAGE`` (a
read-only view), ``table()``, ``refusal()`` and ``check_graph()`` read:

- ``dispatch``: the op's NumPy kernel itself.  It only calls ``np.<func>``
  on its inputs, and CuPy arrays implement ``__array_ufunc__`` and
  ``__array_function__``, so NumPy hands the call to CuPy's function of the
  same name.  ``needs`` names what the array module must have (checked when
  a graph is compiled, so an older CuPy fails early and clearly).
- ``cupy``: a kernel of its own, written against ``xp()`` (the current
  device's array module), for NumPy kernels that make host arrays
  (``np.asarray``, ``np.empty``, ``np.zeros``), pass arguments CuPy lacks,
  or rely on NumPy-only behaviour.  Being written against ``xp()``, these
  run (and are tested) on the NumPy device too.
- ``unsupported``: the op's ``cupy_kernel`` is ``Refused(reason)``;
  compiling a graph with the op raises an FgraphError naming the op, the
  reason and the user's line.

An entry may also ``refuse`` single nodes (a parameter CuPy cannot honour).
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ...devices import current
from ...errors import FgraphError, format_location
from ...registry import Refused, attr_table, declare_attr, get_attr, kernel_attrs, override, set_attr

CUPY, NUMPY = kernel_attrs("cupy"), kernel_attrs("numpy")
KERNEL, OUT_KERNEL = CUPY.kernel, CUPY.out

#: the audit facts of an op's CuPy route, declared op attributes
ROUTE = declare_attr("cupy_route", "how the op runs on the CuPy engine: 'dispatch' (its NumPy kernel on CuPy "
                                   "arrays) or 'cupy' (a kernel of its own); a Refused cupy_kernel: unsupported")
NOTE = declare_attr("cupy_note", "what the op's CuPy route does, for the coverage table")
NEEDS = declare_attr("cupy_needs", "attributes the array module must have for the op's CuPy route "
                                   "('linalg.eigh'), checked when a graph is compiled")
REFUSE = declare_attr("cupy_refuse", "node -> why this node cannot run on the CuPy engine, or None")


@dataclass(frozen=True)
class Support:
    """How one op runs on the CuPy engine (a row of :data:`COVERAGE`)."""

    how: str  # "dispatch" | "cupy" | "unsupported"
    note: str = ""
    needs: tuple = ()  # attributes of the array module ("linalg.eigh")
    refuse: Callable | None = None  # node -> reason it cannot run, or None


def _audit(op: str, how: str, note: str = "", needs=(), refuse=None) -> None:
    """Record ``op``'s CuPy route and its facts as op attributes."""
    set_attr(op, ROUTE, how)
    set_attr(op, NOTE, note)
    if needs:
        set_attr(op, NEEDS, tuple(needs))
    if refuse is not None:
        set_attr(op, REFUSE, refuse)


def support(op: str) -> Support | None:
    """``op``'s route on the CuPy engine, read from its attributes (None: not audited)."""
    kernel = get_attr(op, KERNEL, None)
    if isinstance(kernel, Refused):
        return Support("unsupported", kernel.reason)
    how = get_attr(op, ROUTE, None)
    if how is None:
        return None
    return Support(how, get_attr(op, NOTE, ""), get_attr(op, NEEDS, ()), get_attr(op, REFUSE, None))


class _Coverage(Mapping):
    """op name -> :class:`Support`: a read-only view of the ops' CuPy
    attributes (every audited op: a route, or a Refused kernel).  Setting an
    entry records it as those attributes (kept for callers that assign rows)."""

    def __getitem__(self, op: str) -> Support:
        s = support(op)
        if s is None:
            raise KeyError(op)
        return s

    def __iter__(self):
        routes = attr_table(ROUTE)
        yield from routes
        yield from (op for op, k in attr_table(KERNEL).items() if isinstance(k, Refused) and op not in routes)

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __contains__(self, op) -> bool:
        return support(op) is not None

    def __setitem__(self, op: str, s: Support) -> None:
        if s.how == "unsupported":
            override("cupy", op, Refused(s.note))
        else:
            _audit(op, s.how, s.note, s.needs, s.refuse)


#: op name -> Support, read from the registry
COVERAGE = _Coverage()


def xp():
    """The array module of the device the engine runs on now."""
    return current().xp


def on_device(value):
    """A kernel result as an array of the current device (a NumPy function
    given only Python scalars answers on the host)."""
    m = xp()
    return m.asarray(value) if m is not np and isinstance(value, np.ndarray) else value


def _placed(kernel):
    def run(*args, **params):
        return on_device(kernel(*args, **params))
    run.__name__ = getattr(kernel, "__name__", "kernel")
    return run


def dispatch(op: str, note: str = "", needs=(), refuse=None, out: bool = True, wrap: bool = True) -> None:
    """``op`` runs its NumPy kernel (and out-kernel, if ``out``) on CuPy arrays
    through NumPy's dispatch protocols.  ``wrap=False`` for ufuncs (their
    scalar results are NumPy scalars, which CuPy accepts)."""
    kernel = get_attr(op, NUMPY.kernel)
    out_kernel = get_attr(op, NUMPY.out, None) if out else None
    override("cupy", op, _placed(kernel) if wrap else kernel, out=out_kernel)
    _audit(op, "dispatch", note, needs, refuse)


def cupy(op: str, kernel, out_kernel=None, note: str = "", needs=(), refuse=None, all=None,
         workspace=None) -> None:
    """``op`` has a kernel of its own on the CuPy engine (``all``: the kernel
    computing every output of a multi-output op; ``workspace``: the sizer of
    the scratch its out-kernel takes, planned in the device arena)."""
    override("cupy", op, kernel, out=out_kernel, all=all, workspace=workspace)
    _audit(op, "cupy", note, needs, refuse)


def unsupported(op: str, reason: str) -> None:
    """``op`` cannot run on the CuPy engine: compiling a graph with it raises, giving ``reason``."""
    override("cupy", op, Refused(reason))


def has(module, dotted: str) -> bool:
    obj = module
    for part in dotted.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return False
    return True


def _missing(op: str, module) -> list:
    return [n for n in get_attr(op, NEEDS, ()) if not has(module, n)]


def refusal(node, module) -> str | None:
    """Why ``node`` cannot run on the CuPy engine with array module ``module``, or None."""
    op = node.op
    kernel = get_attr(op, KERNEL, None)
    if isinstance(kernel, Refused):
        return kernel.reason
    if get_attr(op, ROUTE, None) is None:
        if op in ("placeholder", "variable"):  # filled by the engine: feeds, state
            return None
        if kernel is not None:
            return None
        return "no CuPy kernel: the op was not audited for the CuPy engine"
    missing = _missing(op, module)
    if missing:
        return f"{module.__name__} {getattr(module, '__version__', '')} has no " + \
            ", ".join(f"{module.__name__}.{n}" for n in missing)
    refuse = get_attr(op, REFUSE, None)
    return refuse(node) if refuse is not None else None


def implied_routes() -> int:
    """An element-wise op with a NumPy kernel and no CuPy route of its own
    runs its NumPy kernel on CuPy arrays (NumPy's dispatch protocols hand
    each ufunc call to CuPy), as the Dask engine maps it over blocks: so an
    element-wise op declared in its family file alone runs here too.  Adds
    the routes of ops registered since the last call; returns how many."""
    elementwise, kernels, added = attr_table("elementwise"), attr_table(KERNEL), 0
    for op in list(elementwise):
        if elementwise[op] and op not in kernels and get_attr(op, NUMPY.kernel, None) is not None:
            dispatch(op, "element-wise: its NumPy kernel on CuPy arrays (implied)")
            added += 1
    return added


def check_graph(roots, module) -> None:
    """Raise FgraphError for the first node (fused groups: their inner ops too)
    that cannot run on the CuPy engine."""
    from ...ops.control import bodies
    from ...symbol import topological
    from .fused import generated

    implied_routes()
    for n in topological(roots):
        reason = refusal(n, module)
        if reason is None and n.op in ("fused", "fused_reduce") and not generated(n):
            for op, _, params, _ in n.param("expr"):  # run op by op: CuPy needs each of them
                reason = _inner_refusal(op, module)
                if reason:
                    break
        if reason:
            raise FgraphError(f"op {n.op!r} is not supported on the cupy engine: {reason} "
                              f"(node made at {format_location(n.where)})")
        for body in bodies(n):  # a loop's or branch's sub-graph runs with the same kernels (nesting depth only)
            check_graph(body.outputs, module)


def _inner_refusal(op: str, module) -> str | None:
    """An element-wise op inside a fused group that has no generated kernel
    (complex, float16): the op-by-op chain needs it in ``module``."""
    s = support(op)
    if s is None or s.how == "unsupported":
        return f"element-wise {op!r} has no CuPy kernel"
    missing = _missing(op, module)
    return f"{module.__name__} has no {', '.join(missing)} (inside a fused group)" if missing else None


def table() -> list[tuple[str, str, str]]:
    """(op, how, note) for every op, sorted by route then name (for docs and the report)."""
    order = {"cupy": 0, "dispatch": 1, "unsupported": 2}
    rows = [(op, s.how, s.note + (f" [needs {', '.join(s.needs)}]" if s.needs else ""))
            for op, s in COVERAGE.items()]
    return sorted(rows, key=lambda r: (order[r[1]], r[0]))
