# Locate values in sorted bin edges with searchsorted and digitize.
import numpy as np

edges = np.array([0.0, 1.0, 2.5, 4.0, 10.0])
rng = np.random.default_rng(1)
vals = rng.uniform(0, 10, 15)
left = np.searchsorted(edges, vals)
right = np.searchsorted(edges, vals, side="right")
d = np.digitize(vals, edges)
print(vals.round(2))
print(left)
print(right)
print(d)
print("per bin:", np.bincount(d, minlength=6))
result = (left, d)
