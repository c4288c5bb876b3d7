# Convert flat indices to coordinates and back, and locate the maximum of a 2-D array.
import numpy as np

print(np.unravel_index(99, (6, 7, 8)))
print(np.ravel_multi_index((1, 5, 3), (6, 7, 8)))
rng = np.random.default_rng(7)
A = rng.integers(0, 1000, size=(6, 9))
i, j = np.unravel_index(np.argmax(A), A.shape)
print("max", A[i, j], "at", (int(i), int(j)))
result = (A[i, j], i, j)
