# Unique rows and counts, reconstruction from the inverse, and most common row.
import numpy as np

rng = np.random.default_rng(12)
pts = rng.integers(0, 3, size=(20, 2))
rows, inv, counts = np.unique(pts, axis=0, return_inverse=True, return_counts=True)
print(rows)
print("counts:", counts)
print("rebuilt:", np.array_equal(rows[inv.ravel()], pts))
print("most common:", rows[np.argmax(counts)])
flat, first = np.unique(pts[:, 0] * 3 + pts[:, 1], return_index=True)
print("codes:", flat, "first seen at:", first)
vals, c = np.unique([3, 1, 3, 3, 2, 1], return_counts=True)
print(dict(zip(vals.tolist(), c.tolist())))
result = (rows, counts, first)
