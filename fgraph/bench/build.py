"""How much a node costs: building chains of 1e3..1e6 nodes, then compiling
and running them once, against eager NumPy running the same chain."""
from __future__ import annotations

import gc
import time

import numpy as np

import fgraph
import fgraph.numpy as fnp

from .report import environment, save, table


def _chain(n_nodes: int):
    x = fnp.placeholder((8,), "float64", name="x")
    y = x
    for _ in range(n_nodes // 2):
        y = fnp.tanh(y) * 0.5  # a unary and a binary node per step
    return x, y


def _eager(n_nodes: int, a: np.ndarray):
    y = a
    for _ in range(n_nodes // 2):
        y = np.tanh(y) * 0.5
    return y


def measure(n_nodes: int) -> dict:
    gc.collect()
    gc.disable()  # collector pauses are not node cost
    try:
        t0 = time.perf_counter()
        x, y = _chain(n_nodes)
        t1 = time.perf_counter()
        exe = fgraph.compile(fgraph.Graph(y))
        t2 = time.perf_counter()
        a = np.linspace(-1, 1, 8)
        got = exe(x=a)
        t3 = time.perf_counter()
        exe(x=a)
        t4 = time.perf_counter()
        want = _eager(n_nodes, a)
        t5 = time.perf_counter()
    finally:
        gc.enable()
    assert np.array_equal(got, want), "fgraph and NumPy disagree"
    return {"nodes": n_nodes, "build_us_per_node": (t1 - t0) / n_nodes * 1e6, "build_s": t1 - t0,
            "compile_s": t2 - t1, "first_run_s": t3 - t2, "compile_plus_first_run_s": t3 - t1,
            "steady_run_s": t4 - t3, "eager_numpy_s": t5 - t4, "steady_run_vs_eager": (t4 - t3) / (t5 - t4)}


def main(quick: bool = False, out: str = "bench-results") -> int:
    sizes = [1_000, 10_000, 100_000] + ([] if quick else [1_000_000])
    measure(1_000)  # warm caches and imports
    rows = [measure(n) for n in sizes]
    for prev, row in zip(rows, rows[1:]):
        row["growth_per_10x"] = row["compile_plus_first_run_s"] / prev["compile_plus_first_run_s"]
        row["build_growth_per_10x"] = row["build_s"] / prev["build_s"]
    print("fgraph build benchmark: a chain of tanh/multiply nodes over 8 float64 values")
    print(environment())
    print(table(rows, ["nodes", "build_us_per_node", "build_growth_per_10x", "compile_s", "first_run_s",
                       "compile_plus_first_run_s", "growth_per_10x", "steady_run_vs_eager"]))
    worst = max(r["build_us_per_node"] for r in rows)
    print(f"\nworst build cost: {worst:.2f} us/node (target < 10); near-linear growth means ~10x per 10x nodes")
    print("saved", save("build", out, {"rows": rows}))
    return 0
