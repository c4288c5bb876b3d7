"""Which ops run on the CuPy engine, and how: the coverage table.

Every op gets one entry, by one of three routes:

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
- ``unsupported``: compiling a graph with the op raises an FgraphError
  naming the op, the reason and the user's line.

An entry may also ``refuse`` single nodes (a parameter CuPy cannot honour).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from ...devices import current
from ...errors import FgraphError, format_location
from ...registry import attr_table, get_attr, set_attr

KERNEL, OUT_KERNEL = "cupy_kernel", "cupy_out_kernel"


@dataclass(frozen=True)
class Support:
    """How one op runs on the CuPy engine."""

    how: str  # "dispatch" | "cupy" | "unsupported"
    note: str = ""
    needs: tuple = ()  # attributes of the array module ("linalg.eigh")
    refuse: Callable | None = None  # node -> reason it cannot run, or None


#: op name -> Support
COVERAGE: dict[str, Support] = {}


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
    kernel = get_attr(op, "numpy_kernel")
    set_attr(op, KERNEL, _placed(kernel) if wrap else kernel)
    out_kernel = get_attr(op, "numpy_out_kernel", None)
    if out and out_kernel is not None:
        set_attr(op, OUT_KERNEL, out_kernel)
    COVERAGE[op] = Support("dispatch", note, tuple(needs), refuse)


def cupy(op: str, kernel, out_kernel=None, note: str = "", needs=(), refuse=None) -> None:
    """``op`` has a kernel of its own on the CuPy engine."""
    set_attr(op, KERNEL, kernel)
    if out_kernel is not None:
        set_attr(op, OUT_KERNEL, out_kernel)
    COVERAGE[op] = Support("cupy", note, tuple(needs), refuse)


def unsupported(op: str, reason: str) -> None:
    COVERAGE[op] = Support("unsupported", reason)


def has(module, dotted: str) -> bool:
    obj = module
    for part in dotted.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return False
    return True


def refusal(node, module) -> str | None:
    """Why ``node`` cannot run on the CuPy engine with array module ``module``, or None."""
    s = COVERAGE.get(node.op)
    if s is None:
        if node.op in ("placeholder", "variable"):  # filled by the engine: feeds, state
            return None
        if node.op in attr_table(KERNEL):
            return None
        return "no CuPy kernel: the op was not audited for the CuPy engine"
    if s.how == "unsupported":
        return s.note
    missing = [n for n in s.needs if not has(module, n)]
    if missing:
        return f"{module.__name__} {getattr(module, '__version__', '')} has no " + \
            ", ".join(f"{module.__name__}.{n}" for n in missing)
    return s.refuse(node) if s.refuse is not None else None


def check_graph(roots, module) -> None:
    """Raise FgraphError for the first node (fused groups: their inner ops too)
    that cannot run on the CuPy engine."""
    from ...ops.control import bodies
    from ...symbol import topological
    from .fused import generated

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
    s = COVERAGE.get(op)
    if s is None or s.how == "unsupported":
        return f"element-wise {op!r} has no CuPy kernel"
    missing = [n for n in s.needs if not has(module, n)]
    return f"{module.__name__} has no {', '.join(missing)} (inside a fused group)" if missing else None


def table() -> list[tuple[str, str, str]]:
    """(op, how, note) for every op, sorted by route then name (for docs and the report)."""
    order = {"cupy": 0, "dispatch": 1, "unsupported": 2}
    rows = [(op, s.how, s.note + (f" [needs {', '.join(s.needs)}]" if s.needs else ""))
            for op, s in COVERAGE.items()]
    return sorted(rows, key=lambda r: (order[r[1]], r[0]))
