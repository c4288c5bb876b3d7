# A data report that lets NumPy choose the histogram bins, and applies ufuncs picked by name.
import numpy as np

rng = np.random.default_rng(131)
heights = np.round(rng.normal(170, 8, 120), 1)
counts, edges = np.histogram(heights, bins="auto")
print(len(counts), "bins from", edges[0], "to", edges[-1])
for c, lo, hi in zip(counts, edges[:-1], edges[1:]):
    print(f"{lo:6.1f}-{hi:6.1f} {'*' * int(c // 2)}")
for rule in ["sturges", "fd", "sqrt"]:
    print(rule, len(np.histogram_bin_edges(heights - heights.mean(), bins=rule)) - 1)
ops = {"max": np.maximum, "min": np.minimum, "sum": np.add, "mean": np.mean}
for name, op in ops.items():
    if isinstance(op, np.ufunc):
        print(name, op.reduce(heights), op.accumulate(heights[:4]))
    else:
        print(name, round(float(op(heights)), 3))
result = (counts, edges)
