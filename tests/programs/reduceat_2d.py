# Reductions over variable-width column blocks of a matrix with reduceat along axis 1.
import numpy as np

rng = np.random.default_rng(221)
M = rng.integers(0, 10, size=(3, 9))
starts = np.array([0, 2, 5, 6])
print(M)
print("block sums:\n", np.add.reduceat(M, starts, axis=1))
print("block max:\n", np.maximum.reduceat(M, starts, axis=1))
widths = np.diff(np.append(starts, M.shape[1]))
print("block means:\n", np.round(np.add.reduceat(M, starts, axis=1) / widths, 3))
print("row blocks:", np.add.reduceat(M, [0, 2], axis=0))
print(np.add.reduce(M, axis=(0, 1)), np.multiply.reduce(M[:, :3], axis=1), np.logical_or.reduce(M > 8, axis=0))
T = np.multiply.outer(np.multiply.outer([1, 2], [1, 10]), [1, 100])
print(T.shape, T[1, 1])
result = (np.add.reduceat(M, starts, axis=1), T)
