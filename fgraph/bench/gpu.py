"""The CuPy engine on a GPU.

1. Fused element-wise throughput: the optimise benchmark's 10-op float32
   expression over 1e8 values (1e7 with --quick), one generated kernel,
   against CuPy eager (one kernel and one temporary per op) and against the
   card's memory bandwidth (a device-to-device copy, GB/s read + written).
2. Networks: the MLP (forward; a training step) and the transformer block of
   ``workloads.py`` through ``optimise`` + ``compile(engine="cupy")`` against
   the same code run eagerly on CuPy arrays.

Times are the best of N interleaved runs, each ended by a stream
synchronisation.  Without CuPy or a GPU this prints why and exits 0.
"""
from __future__ import annotations

import time

import numpy as np

import fgraph
import fgraph.numpy as fnp

from ..tree import flatten
from . import workloads
from .optimise import expression
from .report import environment, save, table


def _best(contenders: dict, repeats: int, sync) -> dict:
    """Seconds per call (best of ``repeats`` interleaved rounds, synchronised)."""
    for f in contenders.values():  # warm-up: kernel compilation, pool blocks
        for _ in range(3):
            f()
    sync()
    best = {k: float("inf") for k in contenders}
    for _ in range(repeats):
        for k, f in contenders.items():
            sync()
            t0 = time.perf_counter()
            f()
            sync()
            best[k] = min(best[k], time.perf_counter() - t0)
    return best


def fused_throughput(cupy, n: int, repeats: int) -> dict:
    rng = np.random.default_rng(0)
    host = [rng.random(n, dtype=np.float32) + 0.1 for _ in range(3)]
    dev = [cupy.asarray(a) for a in host]
    phs = [fnp.placeholder((n,), "float32", name=k) for k in "abc"]
    g = fgraph.optimise(fgraph.Graph(expression(fnp, *phs)))
    exe = fgraph.compile(g, engine="cupy")
    feeds = dict(zip("abc", dev))
    got = cupy.asnumpy(exe(**feeds)[:1000])
    want = expression(np, *[a[:1000] for a in host])
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=1e-6)
    src, dst = cupy.empty(n, np.float32), cupy.empty(n, np.float32)
    sync = cupy.cuda.get_current_stream().synchronize
    t = _best({"fgraph": lambda: exe(**feeds), "cupy_eager": lambda: expression(cupy, *dev),
               "copy": lambda: cupy.copyto(dst, src)}, repeats, sync)
    moved = 4 * n * 4  # three inputs read, one output written
    copy_gbs = 2 * 4 * n / t["copy"] / 1e9
    return {"values": n, "kernels": sum(1 for x in g.nodes() if x.op == "fused"),
            "fgraph_ms": 1e3 * t["fgraph"], "cupy_eager_ms": 1e3 * t["cupy_eager"],
            "fgraph_GBps": moved / t["fgraph"] / 1e9, "cupy_eager_GBps": moved / t["cupy_eager"] / 1e9,
            "copy_GBps": copy_gbs, "fgraph_vs_eager": t["cupy_eager"] / t["fgraph"],
            "fgraph_of_bandwidth": moved / t["fgraph"] / 1e9 / copy_gbs}


def network(cupy, name: str, repeats: int) -> dict:
    fn, args, names = workloads.make_inputs(name, np.random.default_rng(1))
    phs = [fnp.placeholder(a.shape, a.dtype, name=k) for a, k in zip(args, names)]
    out = fn(fnp, *phs)
    g = fgraph.optimise(fgraph.Graph(out))
    exe = fgraph.compile(g, engine="cupy")
    dev = [cupy.asarray(a) for a in args]
    feeds = dict(zip(names, dev))
    leaf = lambda x: not isinstance(x, (list, tuple, dict))  # noqa: E731
    got, _ = flatten(exe(**feeds), leaf)
    want, _ = flatten(fn(np, *args), leaf)
    for a, b in zip(got, want):
        np.testing.assert_allclose(cupy.asnumpy(a), b, rtol=2e-3, atol=2e-4)
    sync = cupy.cuda.get_current_stream().synchronize
    t = _best({"fgraph": lambda: exe(**feeds), "cupy_eager": lambda: fn(cupy, *dev)}, repeats, sync)
    return {"workload": name, "nodes": len(g), "arena_MB": exe.memory.arena_bytes / 1e6,
            "fgraph_ms": 1e3 * t["fgraph"], "cupy_eager_ms": 1e3 * t["cupy_eager"],
            "speedup_vs_eager": t["cupy_eager"] / t["fgraph"]}


def main(quick: bool = False, out: str = "bench-results") -> int:
    from ..devices.cupy_device import unavailable

    reason = unavailable()
    if reason is not None:
        print(f"gpu benchmark skipped: {reason}")
        return 0
    import cupy

    n = 10_000_000 if quick else 100_000_000
    repeats = 5 if quick else 20
    print("fgraph gpu benchmark (CuPy engine)")
    env = environment()
    props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.runtime.getDevice())
    env.update(cupy=cupy.__version__, gpu=props["name"].decode() if isinstance(props["name"], bytes) else props["name"])
    print(env)
    fused = fused_throughput(cupy, n, repeats)
    print(f"\nFused element-wise, 10 ops, float32, {n:.0e} values (best of {repeats}):")
    print(table([fused], ["values", "kernels", "fgraph_ms", "cupy_eager_ms", "fgraph_vs_eager", "fgraph_GBps",
                          "cupy_eager_GBps", "copy_GBps", "fgraph_of_bandwidth"]))
    nets = [network(cupy, name, repeats) for name in ("mlp_forward", "mlp_train_step", "transformer_block")]
    print("\nNetworks (float32) against the same code on CuPy arrays:")
    print(table(nets, ["workload", "nodes", "arena_MB", "fgraph_ms", "cupy_eager_ms", "speedup_vs_eager"]))
    print("saved", save("gpu", out, {"environment_gpu": env, "fused": fused, "networks": nets}))
    return 0
