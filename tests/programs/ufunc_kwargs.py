# Reductions with where=, initial=, keepdims, axis tuples and dtype=; accumulate along rows.
import numpy as np

M = np.array([[3, -1, 4, -1], [5, -9, 2, 6], [-5, 3, 5, -8]])
pos = M > 0
print(np.sum(M, where=pos), np.add.reduce(M, axis=1, where=pos))
print(np.max(M, axis=1, where=M < 0, initial=-100))
print(np.min(M, initial=0), np.max(np.array([], dtype=int), initial=-1))
print(np.sum(M, axis=(0, 1)), M.sum(axis=0, keepdims=True), M.mean(axis=1, keepdims=True).shape)
print(np.prod(M, axis=0, dtype=np.int8), np.sum(M.astype(np.int8), dtype=np.int64).dtype)
print(np.maximum.accumulate(M, axis=1))
print(np.add.accumulate(M, axis=0)[-1], np.cumsum(M, axis=0)[-1])
print(np.add.outer(np.arange(2), M[0]).shape, np.multiply.outer(M[0], M[0])[3])
print(np.add.reduceat(np.arange(8), [0, 4, 1, 5]))
print(np.mean(M, where=pos, axis=0))
print(np.all(M > -10, axis=1), np.any(M == 5, axis=0, keepdims=True))
result = (np.add.reduce(M, axis=1, where=pos), np.maximum.accumulate(M, axis=1),
          np.add.reduceat(np.arange(8), [0, 4, 1, 5]))
