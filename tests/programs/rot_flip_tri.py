# Rotations, flips, triangles, diagonals, traces, outer and cross products.
import numpy as np

M = np.arange(1, 10).reshape(3, 3)
print(np.rot90(M))
print(np.rot90(M, k=2))
print(np.rot90(M, -1, axes=(0, 1)))
print(np.flip(M), np.fliplr(M)[0], np.flipud(M)[0], np.flip(M, axis=1)[2])
print(np.triu(M, 1))
print(np.tril(M, -1))
print(np.diag(M), np.diag(M, k=1), np.diag(M, -2))
print(np.diag([1, 2, 3], k=1))
print(np.trace(M), np.trace(M, offset=1), np.diagonal(M, 1))
print(np.outer([1, 2, 3], [1, 10]))
print(np.cross([1, 0, 0], [0, 1, 0]), np.cross([[1, 2, 3], [4, 5, 6]], [[6, 5, 4], [3, 2, 1]]))
print(np.tri(3, 4, 1, dtype=int))
print(np.triu_indices(3, 1), M[np.tril_indices(3)])
result = (np.rot90(M, -1), np.triu(M, 1), np.cross([[1, 2, 3], [4, 5, 6]], [[6, 5, 4], [3, 2, 1]]))
