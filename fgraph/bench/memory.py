"""Memory planning on real workloads: arena against the lower bound, peak
memory and run time against eager NumPy running the same code."""
from __future__ import annotations

import time

import numpy as np

import fgraph
import fgraph.numpy as fnp

from ..tree import flatten
from .report import environment, save, table
from .timing import best_of, peak_bytes
from .workloads import MICRO_BATCHED, WORKLOADS, make_inputs




def _build(name, fn, args, names):
    """The graph as a user writes it: a training step keeps its weights as
    variables and its new weights as updates (the same code computes them)."""
    if name != "mlp_train_step":
        phs = [fnp.placeholder(a.shape, a.dtype, name=n) for a, n in zip(args, names)]
        return fgraph.Graph(fn(fnp, *phs), inputs=phs), {n: a for n, a in zip(names, args)}
    phs = [fnp.placeholder(a.shape, a.dtype, name=n) for a, n in zip(args[:2], names[:2])]
    ws = [fnp.variable(a, name=n) for a, n in zip(args[2:], names[2:])]
    loss, new = fn(fnp, *phs, *ws)
    return fgraph.Graph(loss, updates=dict(zip(ws, new))), {n: a for n, a in zip(names[:2], args[:2])}


def _eager(name, fn, args):
    """The same code run eagerly; a training step carries its weights along."""
    if name != "mlp_train_step":
        return lambda: fn(np, *args)
    state = list(args[2:])

    def step():
        loss, state[:] = fn(np, *args[:2], *state)
        return loss
    return step


def measure(name: str, repeats: int) -> dict:
    rng = np.random.default_rng(0)
    fn, args, names = make_inputs(name, rng)
    t0 = time.perf_counter()
    graph, feeds = _build(name, fn, args, names)
    t1 = time.perf_counter()
    optimised = fgraph.optimise(graph)
    t2 = time.perf_counter()
    exe = fgraph.compile(optimised)
    t3 = time.perf_counter()
    eager = _eager(name, fn, args)
    got = exe(**feeds)
    want = eager()
    got_leaves, _ = flatten(got, lambda x: isinstance(x, np.ndarray))
    want_leaves, _ = flatten(want, lambda x: isinstance(x, (np.ndarray, np.generic)))
    worst = max(float(np.max(np.abs(g - w))) / (float(np.max(np.abs(w))) or 1.0)
                for g, w in zip(got_leaves, want_leaves))
    exe(**feeds)
    m = exe.memory
    graph_run_peak = peak_bytes(lambda: exe(**feeds))
    eager_peak = peak_bytes(eager)
    t = best_of({"graph": lambda: exe(**feeds), "numpy": eager}, repeats)
    graph_peak = m.arena_bytes + graph_run_peak
    return {"workload": name, "nodes": len(graph), "nodes_optimised": len(optimised),
            "arena_MB": m.arena_bytes / 2**20, "lower_bound_MB": m.lower_bound_bytes / 2**20,
            "arena_vs_lower_bound": m.ratio, "arena_vs_lower_bound_inplace": m.ratio_inplace,
            "no_reuse_MB": m.no_reuse_bytes / 2**20, "inplace_pairs": m.inplace, "schedule": m.schedule,
            "offsets": m.strategy, "updates_in_place": m.updates_in_place, "graph_peak_MB": graph_peak / 2**20, "eager_peak_MB": eager_peak / 2**20,
            "eager_vs_graph_peak": eager_peak / graph_peak, "graph_ms": 1e3 * t["graph"],
            "numpy_ms": 1e3 * t["numpy"], "time_vs_numpy": t["graph"] / t["numpy"],
            "build_ms": 1e3 * (t1 - t0), "optimise_ms": 1e3 * (t2 - t1), "compile_plan_ms": 1e3 * (t3 - t2),
            "max_rel_error": worst}


def measure_micro_batched(name: str, ks: tuple, repeats: int) -> list[dict]:
    """The inference workload compiled plainly and with ``micro_batch=k``
    for each k: peak (arena(s) plus a run's own allocations, the outputs
    included) and time against eager NumPy, measured side by side."""
    rng = np.random.default_rng(0)
    fn, args, names = make_inputs(name, rng)
    graph, feeds = _build(name, fn, args, names)
    optimised = fgraph.optimise(graph)
    plain = fgraph.compile(optimised)
    eager = _eager(name, fn, args)
    want = eager()
    exes = {k: fgraph.compile(optimised, micro_batch=(k, ["x"])) for k in ks}
    contenders = {"numpy": eager, "graph": lambda: plain(**feeds)}
    contenders.update({f"mb{k}": (lambda e=e: e(**feeds)) for k, e in exes.items()})
    t = best_of(contenders, repeats)
    eager_peak = peak_bytes(eager)
    plain(**feeds)
    graph_peak = plain.memory.arena_bytes + peak_bytes(lambda: plain(**feeds))
    rows = []
    for k, exe in exes.items():
        got = exe(**feeds)
        m = exe.memory
        peak = m.total_arena_bytes + peak_bytes(lambda: exe(**feeds))
        rows.append({"workload": name, "batch": m.batch, "micro_batch": k, "chunks": m.chunks,
                     "chunk_arena_MB": m.total_arena_bytes / 2**20, "mb_peak_MB": peak / 2**20,
                     "graph_peak_MB": graph_peak / 2**20, "eager_peak_MB": eager_peak / 2**20,
                     "eager_vs_mb_peak": eager_peak / peak, "mb_ms": 1e3 * t[f"mb{k}"], "graph_ms": 1e3 * t["graph"],
                     "numpy_ms": 1e3 * t["numpy"], "mb_time_vs_numpy": t[f"mb{k}"] / t["numpy"],
                     "max_rel_error": float(np.max(np.abs(got - want)) / (np.max(np.abs(want)) or 1.0))})
    return rows


def main(quick: bool = False, out: str = "bench-results") -> int:
    repeats = 3 if quick else 9
    rows = [measure(name, repeats) for name in WORKLOADS]
    mb_rows = [r for name, ks in MICRO_BATCHED.items() for r in measure_micro_batched(name, ks, repeats)]
    print("fgraph memory benchmark (float32)")
    print(environment())
    print("\nPeak memory: the graph's arena plus a steady-state run's own allocations (outputs) against "
          "eager NumPy's tracemalloc peak for the same code; times are best of", repeats, "interleaved runs.")
    print(table(rows, ["workload", "nodes", "nodes_optimised", "arena_MB", "lower_bound_MB", "arena_vs_lower_bound",
                       "arena_vs_lower_bound_inplace", "no_reuse_MB", "graph_peak_MB", "eager_peak_MB",
                       "eager_vs_graph_peak", "graph_ms", "numpy_ms", "time_vs_numpy"]))
    print()
    print(table(rows, ["workload", "inplace_pairs", "updates_in_place", "schedule", "offsets", "build_ms", "optimise_ms",
                       "compile_plan_ms", "max_rel_error"]))
    print("\nMicro-batched inference (fgraph.compile(g, micro_batch=k): k rows of the batch at a time, in an "
          "arena planned for k rows; same results as the plain compile): peak = the chunk program's arena plus "
          "a run's own allocations (the full outputs included), against eager NumPy on the whole batch.")
    print(table(mb_rows, ["workload", "batch", "micro_batch", "chunks", "chunk_arena_MB", "mb_peak_MB", "graph_peak_MB",
                          "eager_peak_MB", "eager_vs_mb_peak", "mb_ms", "graph_ms", "numpy_ms", "mb_time_vs_numpy",
                          "max_rel_error"]))
    print("saved", save("memory", out, {"rows": rows, "micro_batched": mb_rows}))
    return 0
