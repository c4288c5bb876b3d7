"""The Dask engine against the same computation written by hand in dask.array.

1. One reduction graph, ``sum(sqrt(x * x + 1) * 0.5 - x * 0.25 + 1)`` (six
   element-wise ops and a sum, float64), at growing sizes.  Both sides get
   the same input: one dask array, in memory, in the engine's "auto" chunks
   (16 MiB); the hand-written side also runs on dask's own default chunks
   (128 MiB).  Dask's threaded scheduler, best of a few interleaved runs.
   The engine runs the optimised graph: one fused kernel per block that
   reduces cache-sized pieces as it goes, where the hand-written version
   makes a block-sized temporary per op (dask fuses the ops into one task,
   not into one pass).  Eager NumPy alongside, while its temporaries fit.
2. Scaling: the same graph with ``x = linspace(0, 1, n)`` made chunk by
   chunk inside it (no data to ship), on a ``distributed.LocalCluster`` of
   one and then two single-threaded worker processes on 127.0.0.1.

This machine is shared: every row records the 1-minute load average, and
the figures are ratios measured side by side in one run.
"""
from __future__ import annotations

import os
import time

import numpy as np

import fgraph
import fgraph.numpy as fnp

from .report import environment, save, table


def expression(xp, x):
    """Six element-wise ops and a sum."""
    return xp.sum(xp.sqrt(x * x + 1.0) * 0.5 - x * 0.25 + 1.0)


def _load() -> float | None:
    return os.getloadavg()[0] if hasattr(os, "getloadavg") else None


def best(contenders: dict, repeats: int) -> dict:
    """Seconds per call, best of ``repeats`` interleaved rounds after one warm-up each."""
    for f in contenders.values():
        f()
    out = {k: float("inf") for k in contenders}
    for _ in range(repeats):
        for k, f in contenders.items():
            t0 = time.perf_counter()
            f()
            out[k] = min(out[k], time.perf_counter() - t0)
    return out


def sizes_case(n: int, repeats: int) -> dict:
    import dask.array as da

    from ..engines.dask_lowering import Context

    x = np.random.default_rng(0).random(n)
    chunks = Context(None).chunks_for((n,), x.dtype)
    dx = da.from_array(x, chunks=chunks)
    dx_default = da.from_array(x, chunks="auto")  # dask's own 128 MiB blocks
    p = fnp.placeholder((n,), "float64", name="x")
    exe = fgraph.compile(fgraph.Graph(expression(fnp, p)), engine="dask")
    got, hand = float(exe(x=dx)), float(expression(da, dx).compute())
    assert abs(got - hand) <= 1e-9 * abs(hand), (got, hand)
    contenders = {"fgraph": lambda: exe(x=dx), "hand": lambda: expression(da, dx).compute(),
                  "hand_dask_chunks": lambda: expression(da, dx_default).compute()}
    if n <= 100_000_000:  # eager NumPy's temporaries (4 x 8n bytes) stay well inside memory
        contenders["numpy"] = lambda: expression(np, x)
    load = _load()
    t = best(contenders, repeats)
    row = {"values": f"{n:.0e}", "blocks": len(chunks[0]), "fgraph_s": t["fgraph"], "hand_s": t["hand"],
           "hand_speedup": t["hand"] / t["fgraph"], "hand_dask_chunks_s": t["hand_dask_chunks"],
           "hand_dask_chunks_speedup": t["hand_dask_chunks"] / t["fgraph"], "fgraph_Mvalues_s": n / t["fgraph"] / 1e6,
           "numpy_s": t.get("numpy"), "numpy_speedup": t["numpy"] / t["fgraph"] if "numpy" in t else None,
           "load_1m": load}
    return row


def scaling(n: int, workers: tuple, repeats: int) -> list[dict]:
    import dask.array as da
    from distributed import Client, LocalCluster

    from ..engines.dask_lowering import Context

    chunk = Context(None).chunks_for((n,), np.float64)[0][0]
    graph = fgraph.Graph(expression(fnp, fnp.linspace(0.0, 1.0, n)))
    rows = []
    for k in workers:
        with LocalCluster(n_workers=k, threads_per_worker=1, host="127.0.0.1", processes=True,
                          dashboard_address=None) as cluster, Client(cluster) as client:
            exe = fgraph.compile(graph, engine="dask", client=client)
            hand = expression(da, da.linspace(0.0, 1.0, n, chunks=chunk))
            load = _load()
            t = best({"fgraph": lambda: exe(), "hand": lambda: client.compute(hand).result()}, repeats)
            rows.append({"workers": k, "values": f"{n:.0e}", "fgraph_s": t["fgraph"], "hand_s": t["hand"],
                         "hand_speedup": t["hand"] / t["fgraph"], "load_1m": load})
    for row in rows:
        row["fgraph_scaling"] = rows[0]["fgraph_s"] / row["fgraph_s"]
        row["hand_scaling"] = rows[0]["hand_s"] / row["hand_s"]
    return rows


def main(quick: bool = False, out: str = "bench-results") -> int:
    try:
        import dask  # noqa: F401
        import distributed  # noqa: F401
    except ImportError as e:
        print(f"dask benchmark skipped: {e}")
        return 0
    import warnings

    warnings.simplefilter("ignore")  # dask's large-graph and memory notices
    sizes = [1_000_000, 10_000_000] if quick else [10_000_000, 100_000_000, 400_000_000]
    repeats = 2 if quick else 3
    print("fgraph dask benchmark")
    print(environment())
    rows = [sizes_case(n, repeats) for n in sizes]
    print("\nsum(sqrt(x*x + 1)*0.5 - x*0.25 + 1), float64, threaded scheduler (best of", repeats, "interleaved runs;")
    print("speedup = the other's time / fgraph's; hand = dask.array by hand on the same chunks):")
    print(table(rows, ["values", "blocks", "fgraph_s", "fgraph_Mvalues_s", "hand_s", "hand_speedup",
                       "hand_dask_chunks_s", "hand_dask_chunks_speedup", "numpy_s", "numpy_speedup", "load_1m"]))
    n_scale = 10_000_000 if quick else 400_000_000
    scale = scaling(n_scale, (1, 2), repeats)
    print("\nScaling on a LocalCluster (single-threaded worker processes; x = linspace made in the graph):")
    print(table(scale, ["workers", "values", "fgraph_s", "fgraph_scaling", "hand_s", "hand_scaling", "hand_speedup",
                        "load_1m"]))
    print("saved", save("dask", out, {"sizes": rows, "scaling": scale}))
    return 0
