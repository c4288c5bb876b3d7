"""The family oracle tests, run again through the Dask engine.

The family tests (test_elementwise.py, test_reduction.py, ...) compare NumPy
with fgraph through ``oracle.check``.  ``family_cases()`` collects the ones
that do (every public function, every parameter they draw), and
``run_case`` runs one of them with ``oracle``'s fgraph path pointed at the
Dask engine: graphs compiled with ``engine="dask"`` (not optimised, so each
op's own lowering runs) and lazy arrays of a ``fgraph.make(engine="dask")``
stack, both on chunks of 2 so every chunk boundary is crossed.  Families
whose dask lowering reorders floating-point sums (reductions, products)
compare within a tolerance; the others must stay bit-identical.
"""
from __future__ import annotations

import importlib
import inspect
import re

import numpy as np
import pytest
from hypothesis import settings

import fgraph
import oracle

CHUNKS = 2
#: family test module -> whether its values may differ from NumPy by rounding
FAMILIES = {"test_elementwise": False, "test_movement": False, "test_indexing": False, "test_creation": False,
            "test_sorting": False, "test_reduction": True, "test_linalg": True}
#: hypothesis examples per family test, and parameter combinations at most
#: per plain parametrised test (a spread of them, deterministic)
EXAMPLES = 3
COMBOS = 12

_NAMESPACE = None


def namespace():
    """The Dask stack used for the eval path (chunks of 2)."""
    global _NAMESPACE
    if _NAMESPACE is None:
        _NAMESPACE = fgraph.make(engine="dask", chunks=CHUNKS)
    return _NAMESPACE


def run_on_dask(fn, arrays, path):
    """``oracle._run`` with the Dask engine in place of the NumPy one."""
    xp = namespace()
    if path == "compile":
        phs = [xp.placeholder(a.shape, a.dtype, name=f"in{i}") if isinstance(a, np.ndarray) else a
               for i, a in enumerate(arrays)]
        out = fn(xp, *phs)
        leaves = oracle._leaves(out)
        graph = fgraph.Graph(list(leaves), inputs=[p for p in phs if isinstance(p, fgraph.Tensor)])
        exe = fgraph.compile(graph, engine="dask", chunks=CHUNKS, optimise=False)
        results = exe(**{f"in{i}": a for i, a in enumerate(arrays) if isinstance(a, np.ndarray)})
        return oracle._rebuild(out, iter(results)), oracle._static(leaves)
    lazy = [xp.asarray(a) if isinstance(a, np.ndarray) else a for a in arrays]
    out = fn(xp, *lazy)
    leaves = oracle._leaves(out)
    return oracle._rebuild(out, iter(np.asarray(x) for x in leaves)), oracle._static(leaves)


def _narrow(dtype) -> bool:
    dtype = np.dtype(dtype)
    return dtype.kind in "fc" and (dtype.itemsize <= 4 or dtype == np.complex64)


def tolerance(dtype, inputs=()) -> tuple[float, float]:
    """rtol, atol for results whose sums dask reorders (inputs here are at most
    a few hundred values of magnitude <= 100), by the result's dtype and the
    narrowest float among the ``inputs``' dtypes: a wider result can carry a
    narrow intermediate's rounding.  multi_dot([f32, i32, bool, f32, f32]) is
    float64, but NumPy computes its (f32 @ f32) factor in float32 by sgemm,
    whose rounding (FMA, its own order) dask's blocked partial sums cannot
    reproduce: one float32 ulp there (61.449093 vs 61.44909), ~6e-8 relative
    in the float64 result, in the same association order (NumPy's) and the
    same precision."""
    dtype = np.dtype(dtype)
    if dtype.kind not in "fc":
        return 0.0, 0.0
    return (1e-4, 1e-2) if _narrow(dtype) or any(map(_narrow, inputs)) else (1e-9, 1e-8)


def _tolerant(exact_same, inputs):
    """``assert_same`` within ``tolerance`` (``inputs``: the dtypes of the
    arrays the case runs on, kept up to date by the run)."""
    def assert_same(got, want, rtol=0.0, atol=0.0, what=""):
        r, a = tolerance(np.asarray(want).dtype, inputs)
        return exact_same(got, want, max(rtol, r), max(atol, a), what)
    return assert_same


def use_dask(monkeypatch, rounding: bool) -> None:
    """``oracle.check`` on the Dask engine from now on (the test's
    monkeypatch undoes it); ``rounding``: values may differ by rounding."""
    inputs = []

    def run(fn, arrays, path):
        inputs[:] = [a.dtype for a in arrays if isinstance(a, np.ndarray)]
        return run_on_dask(fn, arrays, path)
    monkeypatch.setattr(oracle, "_run", run)
    if rounding:
        monkeypatch.setattr(oracle, "assert_same", _tolerant(oracle.assert_same, inputs))


def _uses_oracle(fn) -> bool:
    try:
        src = inspect.getsource(fn)
    except (OSError, TypeError):
        return False
    return re.search(r"\b(check|same)\(", src.split("\n", 1)[-1]) is not None


def _combos(fn) -> list[dict]:
    marks = [m for m in getattr(fn, "pytestmark", []) if m.name == "parametrize"]
    combos = [{}]
    for m in marks:
        names = [n.strip() for n in m.args[0].split(",")] if isinstance(m.args[0], str) else list(m.args[0])
        values = [v.values if hasattr(v, "values") else v for v in m.args[1]]
        combos = [{**c, **dict(zip(names, v if len(names) > 1 else (v,)))} for c in combos for v in values]
    return combos


def family_cases() -> list:
    """pytest params (module, test name, kwargs) for every oracle test of the families."""
    cases = []
    for mod_name in FAMILIES:
        mod = importlib.import_module(mod_name)
        for name, fn in sorted(vars(mod).items()):
            if not name.startswith("test_") or not callable(fn) or not _uses_oracle(fn):
                continue
            combos = _combos(fn)
            if not hasattr(fn, "hypothesis") and len(combos) > COMBOS:  # a spread, not all of them
                step = len(combos) / COMBOS
                combos = [combos[int(k * step)] for k in range(COMBOS)]
            for k, kw in enumerate(combos):
                label = "-".join(_short(v) for v in kw.values()) or "case"
                cases.append(pytest.param(mod_name, name, kw, id=f"{mod_name[5:]}.{name[5:]}[{label}]"))
    return cases


def _short(v) -> str:
    s = getattr(v, "__name__", None) or repr(v)
    return s if len(s) <= 24 else s[:21] + "..."


def run_case(monkeypatch, mod_name: str, test_name: str, kwargs: dict) -> None:
    """Run one family test with the oracle on the Dask engine."""
    fn = getattr(importlib.import_module(mod_name), test_name)
    use_dask(monkeypatch, FAMILIES[mod_name])
    own = getattr(fn, "_hypothesis_internal_use_settings", None)
    if own is not None:  # fewer examples than the family file runs: the engine is what is tested here
        monkeypatch.setattr(fn, "_hypothesis_internal_use_settings", settings(own, max_examples=EXAMPLES))
    fn(**kwargs)


__all__ = ["family_cases", "run_case", "use_dask", "namespace", "run_on_dask", "tolerance", "CHUNKS"]
