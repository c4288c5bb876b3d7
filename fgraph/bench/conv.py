"""Convolution and matrix-product speed against the machine's BLAS.

For ResNet50-like layers (the 7x7 stride-2 stem, 3x3 and 1x1 convolutions,
the strided downsampling ones; float32, batch 1 and 8), in one run,
interleaved:

* ``fgraph.nn.conv2d`` compiled (placeholder input, constant weight);
* ``fgraph.numpy.matmul`` compiled on the convolution's GEMM sizes
  (M = O, K = C*kh*kw, N = batch*H'*W');
* NumPy's own ``np.matmul`` on the same GEMM sizes: the reference;

and, for a few layers, the two gradient ops of a training step.

GFLOP/s count 2*M*K*N flops for all three.  A convolution also pays for
its im2col copy (about K*N values written and read again), so its share of
the GEMM speed is the figure to watch.  The machine is shared: the load
average is saved beside the figures, and every time is the best of several
interleaved rounds.
"""
from __future__ import annotations

import numpy as np

import fgraph
import fgraph.nn as nn
import fgraph.numpy as fnp

from .report import environment, save, table
from .timing import best_of

#: (name, C, O, H=W, kernel, stride, padding[, groups]) of ResNet50 layers at
#: 224x224, and a MobileNet-style depthwise one
LAYERS = [
    ("stem 7x7/2 3->64 @224", 3, 64, 224, 7, 2, 3),
    ("3x3 64->64 @56", 64, 64, 56, 3, 1, 1),
    ("3x3 128->128 @28", 128, 128, 28, 3, 1, 1),
    ("3x3 256->256 @14", 256, 256, 14, 3, 1, 1),
    ("3x3 512->512 @7", 512, 512, 7, 3, 1, 1),
    ("3x3/2 128->128 @56", 128, 128, 56, 3, 2, 1),
    ("1x1 64->256 @56", 64, 256, 56, 1, 1, 0),
    ("1x1 256->64 @56", 256, 64, 56, 1, 1, 0),
    ("1x1 1024->256 @14", 1024, 256, 14, 1, 1, 0),
    ("1x1/2 256->512 @56", 256, 512, 56, 1, 2, 0),
    ("dw 3x3 144 @56 (groups=144)", 144, 144, 56, 3, 1, 1, 144),
]
QUICK = {"stem 7x7/2 3->64 @224", "3x3 64->64 @56", "1x1 256->64 @56"}
#: layers whose gradients (a training step's convolutions) are timed too
BACKWARD = {"3x3 64->64 @56", "3x3 256->256 @14", "1x1 256->64 @56", "3x3/2 128->128 @56",
            "dw 3x3 144 @56 (groups=144)"}


def _compiled(fn, *shapes_and_values):
    """A compiled one-op graph: placeholders for arrays given as shapes."""
    phs = []
    args = []
    for i, (shape, value) in enumerate(shapes_and_values):
        if value is None:
            p = fnp.placeholder(shape, "float32", name=f"in{i}")
            phs.append(p)
            args.append(p)
        else:
            args.append(fnp.asarray(value))
    return fgraph.compile(fgraph.Graph(fn(*args), inputs=phs))


def layer_case(name, c, o, h, k, s, p, batch, repeats, rng, groups=1) -> dict:
    """One layer: its GEMM is (per group) M = O/G, K = C/G*k*k, N = batch*H'*W'."""
    ho = (h + 2 * p - k) // s + 1
    m, kk, n = o // groups, c // groups * k * k, batch * ho * ho
    flops = 2.0 * groups * m * kk * n
    x = rng.standard_normal((batch, c, h, h), dtype=np.float32)
    w = rng.standard_normal((o, c // groups, k, k), dtype=np.float32)
    lead = (groups,) if groups > 1 else ()
    a = rng.standard_normal(lead + (m, kk), dtype=np.float32)
    b = rng.standard_normal(lead + (kk, n), dtype=np.float32)
    conv = _compiled(lambda t, wt: nn.conv2d(t, wt, stride=s, padding=p, groups=groups), (x.shape, None),
                     (w.shape, w))
    mm = _compiled(lambda u, v: u @ v, (a.shape, None), (b.shape, None))
    t = best_of({"conv": lambda: conv(x), "fgraph_matmul": lambda: mm(a, b), "numpy_matmul": lambda: a @ b},
                repeats)
    g = {key: flops / v / 1e9 for key, v in t.items()}
    gemm = f"{m}x{kk}x{n}" + (f" x{groups}" if groups > 1 else "")
    return {"layer": name, "batch": batch, "gemm_MxKxN": gemm, "gflop": flops / 1e9,
            "conv_ms": 1e3 * t["conv"], "conv_gflops": g["conv"], "fgraph_matmul_gflops": g["fgraph_matmul"],
            "numpy_matmul_gflops": g["numpy_matmul"], "conv_vs_blas": g["conv"] / g["numpy_matmul"],
            "matmul_vs_blas": g["fgraph_matmul"] / g["numpy_matmul"]}


def backward_case(name, c, o, h, k, s, p, batch, repeats, rng, groups=1) -> dict:
    """The two gradient ops of a layer: dx = conv_transpose2d(g, w) and
    dw = conv2d_backward_weight(x, g), each the forward's flops."""
    from ..ops import nn as ops

    ho = (h + 2 * p - k) // s + 1
    flops = 2.0 * o * (c // groups) * k * k * batch * ho * ho
    x = rng.standard_normal((batch, c, h, h), dtype=np.float32)
    w = rng.standard_normal((o, c // groups, k, k), dtype=np.float32)
    g = rng.standard_normal((batch, o, ho, ho), dtype=np.float32)
    pads, opad = ((p, p), (p, p)), (h - ((ho - 1) * s - 2 * p + k),) * 2
    dx = _compiled(lambda gt, wt: ops.conv_transpose2d(gt, wt, (s, s), pads, opad, (1, 1), groups),
                   (g.shape, None), (w.shape, w))
    dw = _compiled(lambda xt, gt: ops.conv2d_backward_weight(xt, gt, (s, s), pads, (1, 1), groups, (k, k)),
                   (x.shape, None), (g.shape, None))
    t = best_of({"dx": lambda: dx(g), "dw": lambda: dw(x, g)}, repeats)
    return {"layer": name, "batch": batch, "dx_ms": 1e3 * t["dx"], "dx_gflops": flops / t["dx"] / 1e9,
            "dw_ms": 1e3 * t["dw"], "dw_gflops": flops / t["dw"] / 1e9}


def _check(rng) -> None:
    """One small convolution against a direct sum, so the timed path is right."""
    x = rng.standard_normal((2, 3, 9, 9))
    w = rng.standard_normal((4, 3, 3, 3))
    got = np.asarray(nn.conv2d(x, w, stride=2, padding=1))
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    want = np.zeros_like(got)
    for i in range(got.shape[2]):
        for j in range(got.shape[3]):
            want[:, :, i, j] = np.einsum("ncab,ocab->no", xp[:, :, 2 * i:2 * i + 3, 2 * j:2 * j + 3], w)
    assert np.allclose(got, want, rtol=1e-10, atol=1e-10), "conv2d differs from the direct sum"


def main(quick: bool = False, out: str = "bench-results") -> int:
    rng = np.random.default_rng(0)
    _check(rng)
    repeats = 3 if quick else 7
    batches = (1,) if quick else (1, 8)
    rows = [layer_case(*layer[:7], batch, repeats, rng, *layer[7:]) for batch in batches for layer in LAYERS
            if not quick or layer[0] in QUICK]
    print("fgraph conv benchmark (float32; GFLOP/s = 2*M*K*N / best time)")
    print(environment())
    print(table(rows, ["layer", "batch", "gemm_MxKxN", "conv_ms", "conv_gflops", "fgraph_matmul_gflops",
                       "numpy_matmul_gflops", "conv_vs_blas", "matmul_vs_blas"]))
    for batch in batches:
        sel = [r for r in rows if r["batch"] == batch]
        flops = sum(r["gflop"] for r in sel)
        conv_s = sum(r["gflop"] / r["conv_gflops"] for r in sel)
        blas_s = sum(r["gflop"] / r["numpy_matmul_gflops"] for r in sel)
        print(f"batch {batch}: all layers {flops / conv_s:.1f} GFLOP/s as convolutions, "
              f"{flops / blas_s:.1f} as bare GEMMs ({blas_s / conv_s:.2f} of BLAS)")
    back = [backward_case(*layer[:7], batch, repeats, rng, *layer[7:]) for batch in batches for layer in LAYERS
            if layer[0] in BACKWARD and (not quick or layer[0] in QUICK)]
    print("\nGradients (dx: conv_transpose2d, dw: conv2d_backward_weight; the forward's flops each):")
    print(table(back, ["layer", "batch", "dx_ms", "dx_gflops", "dw_ms", "dw_gflops"]))
    print("saved", save("conv", out, {"layers": rows, "backward": back}))
    return 0
