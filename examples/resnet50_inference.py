"""ResNet-50 inference with fgraph: build, optimise, compile, run a batch.

    python examples/resnet50_inference.py [--batch 8] [--model resnet50|inception_v2] [--onnx]
                                          [--micro-batch K]

The network is written with ``fgraph.numpy`` and ``fgraph.nn``
(``fgraph.models.resnet50``, layer for layer the onnx package's
``light_resnet50.onnx``).  No pretrained weights ship with fgraph, so it
runs random He-initialised weights on random images: the top-5 classes are
meaningless, the timings and the memory plan are not.  ``--onnx`` also
runs onnxruntime on the ONNX file with the same weights written in and
prints the largest difference.  ``--micro-batch K`` runs the batch K
images at a time in an arena planned for K (``fgraph.compile(g,
micro_batch=K)``): the same results in a fraction of the memory.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

import fgraph
import fgraph.numpy as fnp
from fgraph.models import MODELS, as_constants, light_model_path, onnx_with_params


def main(batch: int = 8, model: str = "resnet50", runs: int = 5, onnx: bool = False, seed: int = 0,
         micro_batch: int | None = None) -> np.ndarray:
    fn, params_fn, light, input_name, _ = MODELS[model]
    fgraph.get_engine("numpy")
    t0 = time.perf_counter()
    params = params_fn(seed)
    weights = as_constants(params)  # copied into the graph (and hashed) once
    t1 = time.perf_counter()
    x = fnp.placeholder((batch, 3, 224, 224), "float32", name="x")
    graph = fgraph.Graph(fn(x, weights))
    t2 = time.perf_counter()
    optimised = fgraph.optimise(graph)
    t3 = time.perf_counter()
    exe = fgraph.compile(optimised, micro_batch=micro_batch)
    t4 = time.perf_counter()
    images = np.random.default_rng(seed + 1).random((batch, 3, 224, 224), dtype=np.float32)
    probs = exe(x=images)  # the first run also picks the fused kernels' strategies
    times = []
    for _ in range(runs):
        s = time.perf_counter()
        probs = exe(x=images)
        times.append(time.perf_counter() - s)
    print(f"{model}, batch {batch}: {len(graph)} nodes -> {len(optimised)} after optimise")
    print(f"  weights {1e3 * (t1 - t0):.0f} ms, build {1e3 * (t2 - t1):.0f} ms, optimise {1e3 * (t3 - t2):.0f} ms, "
          f"compile + plan {1e3 * (t4 - t3):.0f} ms")
    print(f"  run: best {1e3 * min(times):.1f} ms, median {1e3 * float(np.median(times)):.1f} ms "
          f"({batch / min(times):.1f} images/s)")
    print(f"  memory: {exe.memory}")
    for i, p in enumerate(probs[:4]):
        top = np.argsort(p)[::-1][:5]
        print(f"  image {i}: top-5 classes {top.tolist()}, p = {', '.join(f'{v:.4f}' for v in p[top])}")
    if onnx:
        import onnxruntime as ort

        sess = ort.InferenceSession(onnx_with_params(light_model_path(light), params, batch=batch).SerializeToString(),
                                    providers=["CPUExecutionProvider"])
        want = sess.run(None, {input_name: images})[0]
        print(f"  onnxruntime: largest relative difference {np.max(np.abs(probs - want) / want):.2e}")
    return probs


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--model", choices=sorted(MODELS), default="resnet50")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--onnx", action="store_true", help="compare with onnxruntime (needs onnx, onnxruntime)")
    ap.add_argument("--micro-batch", type=int, default=None, help="run K images at a time (bounded memory)")
    args = ap.parse_args()
    main(args.batch, args.model, args.runs, args.onnx, micro_batch=args.micro_batch)
