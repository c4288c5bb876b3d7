"""A reduction over an array larger than this machine's memory, on the Dask engine.

    python examples/dask_big_reduction.py                # 5e9 float64 values: a 40 GB virtual array
    python examples/dask_big_reduction.py --size 1e7     # small: NumPy checks it too

The graph is ordinary NumPy code: ``x = linspace(0, 1, n)``, some
element-wise work, ``mean``.  Nothing of size ``n`` is ever stored: the Dask
engine builds ``x`` chunk by chunk (NumPy's own linspace formula per chunk),
and the optimiser has fused the element-wise work and the mean into one
kernel that reduces each chunk a cache-sized piece at a time.

The check is independent of fgraph and of dask: the mean of ``f`` at ``n``
equally spaced points of [0, 1] has a closed form to far below float64
rounding (Euler-Maclaurin: the integral plus end corrections), so a chunk
counted twice or a value missing (a 2e-10 relative change at the default
size) would show.
"""
import argparse
import math
import os
import resource
import time

import numpy as np

import fgraph
import fgraph.numpy as fnp
from fgraph.engines.dask_lowering import Context


def f(xp, x):
    """The element-wise work: sqrt(x^2 + 1) / 2 - x / 4 + 1."""
    return xp.sqrt(x * x + 1.0) * 0.5 - x * 0.25 + 1.0


def closed_form(n: int) -> float:
    """mean of f(i / (n - 1)), i = 0..n-1, by Euler-Maclaurin (error O(n^-4))."""
    m = n - 1
    integral = (math.sqrt(2.0) + math.asinh(1.0)) / 4 - 0.125 + 1.0  # int_0^1 f
    ends = (f(math, 0.0) + f(math, 1.0)) / 2
    slope = 0.5 / math.sqrt(2.0)  # f'(1) - f'(0)
    total = m * integral + ends + slope / (12 * m)
    return total / n


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=float, default=5e9, help="number of float64 values (default 5e9 = 40 GB)")
    parser.add_argument("--chunks", default="auto", help="values per chunk (default: dask's auto, 128 MiB)")
    args = parser.parse_args(argv)
    n = int(args.size)
    chunks = args.chunks if args.chunks == "auto" else int(float(args.chunks))

    x = fnp.linspace(0.0, 1.0, n)
    mean = fnp.mean(f(fnp, x))
    exe = fgraph.compile(fgraph.Graph(mean), engine="dask", chunks=chunks)
    blocks = len(Context(chunks).chunks_for((n,), np.float64)[0])
    print(f"mean(f(linspace(0, 1, {n:,}))): a {n * 8 / 1e9:,.1f} GB virtual float64 array in {blocks:,} chunks; "
          f"optimised graph: {[nd.op for nd in exe.graph.nodes()]}")

    t0 = time.perf_counter()
    got = float(exe())
    seconds = time.perf_counter() - t0
    want = closed_form(n)
    rel = abs(got - want) / abs(want)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6  # kB -> GB (Linux)
    print(f"result      {got!r}")
    print(f"closed form {want!r}   relative difference {rel:.2e}")
    print(f"time {seconds:.1f} s ({n / seconds / 1e6:,.0f} M values/s); peak memory of this process {peak:.2f} GB")
    if n * 8 * 16 < os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"):  # small: NumPy checks it too
        xs = np.linspace(0.0, 1.0, n)
        print(f"NumPy       {float(np.mean(f(np, xs)))!r}")
    ok = rel < 1e-11
    print("OK" if ok else "MISMATCH")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
