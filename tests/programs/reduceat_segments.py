# Group-by with sorting: per-key sums, maxima and sizes with ufunc.reduceat over sorted runs.
import numpy as np

rng = np.random.default_rng(2)
keys = rng.integers(0, 5, size=30)
vals = rng.integers(1, 100, size=30)
order = np.argsort(keys, kind="stable")
k_sorted = keys[order]
v_sorted = vals[order]
uniq, starts, sizes = np.unique(k_sorted, return_index=True, return_counts=True)
sums = np.add.reduceat(v_sorted, starts)
maxes = np.maximum.reduceat(v_sorted, starts)
print("keys:", uniq)
print("sizes:", sizes)
print("sums:", sums)
print("maxes:", maxes)
print("check:", np.array_equal(sums, np.bincount(keys, weights=vals).astype(int)))
print("means:", np.round(sums / sizes, 2))
result = (uniq, sums, maxes)
