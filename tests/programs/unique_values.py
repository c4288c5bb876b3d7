# np.unique with counts, inverse indices and first positions.
import numpy as np

rng = np.random.default_rng(11)
a = rng.integers(0, 6, 25)
u = np.unique(a)
print(u)
vals, counts = np.unique(a, return_counts=True)
for v, c in zip(vals, counts):
    print(v, c)
_, first, inv = np.unique(a, return_index=True, return_inverse=True)
print(first, inv)
rows = np.unique(np.array([[1, 2], [3, 4], [1, 2]]), axis=0)
print(rows)
result = (u, counts, inv, rows)
