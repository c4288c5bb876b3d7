# Histogram of a sample with fixed bins, printed as a text bar chart.
import numpy as np

rng = np.random.default_rng(1)
x = rng.normal(0, 1, 500)
counts, edges = np.histogram(x, bins=10, range=(-3, 3))
for c, lo, hi in zip(counts, edges[:-1], edges[1:]):
    print(f"[{lo:5.2f}, {hi:5.2f}) {'*' * (c // 5)} {c}")
print("total in range:", counts.sum())
dens, _ = np.histogram(x, bins=edges, density=True)
print(f"density integrates to {np.sum(dens * np.diff(edges)):.6f}")
result = (counts, edges, dens)
