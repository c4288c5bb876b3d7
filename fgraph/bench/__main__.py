"""python -m fgraph.bench NAME [options] — run one benchmark."""
import argparse
import importlib
import sys

BENCHES = {"build": "Node construction and compile+first-run cost for long chains.",
           "optimise": "Fused element-wise speed against NumPy and JAX; the optimiser's own cost.",
           "memory": "Arena against the lower bound; peak memory and time against eager NumPy.",
           "planner": "Planning time and arena quality on graphs of 1e3..1e5 nodes.",
           "grad": "A training step (fgraph.grad + SGD) against hand-written NumPy backprop and JAX.",
           "conv": "Convolution and matrix-product GFLOP/s against NumPy's own matmul.",
           "models": "Owl's table: ResNet50, Inception, a digits CNN with and without the graph, and onnxruntime.",
           "dask": "A reduction graph on the Dask engine against hand-written dask.array; 1 and 2 workers.",
           "gpu": "CuPy engine: fused element-wise throughput and a network against CuPy eager.",
           "eager": "Eager NumPy programs (per-step fetches, in-place writes) with numpy and fgraph.numpy.",
           "loops": "while_loop (Jacobi to a tolerance), scan + grad (an RNN step), fori_loop (Newton) against "
                    "the same loops in NumPy and JAX."}


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m fgraph.bench", description=__doc__)
    parser.add_argument("name", choices=sorted(BENCHES), help="; ".join(f"{k}: {v}" for k, v in BENCHES.items()))
    parser.add_argument("--quick", action="store_true", help="smaller sizes (a smoke run)")
    parser.add_argument("--out", default="bench-results", help="folder for the JSON results")
    args = parser.parse_args(argv)
    mod = importlib.import_module(f"fgraph.bench.{args.name}")
    return mod.main(quick=args.quick, out=args.out)


if __name__ == "__main__":
    sys.exit(main())
