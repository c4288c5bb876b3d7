# Joining and editing arrays: column_stack, dstack, r_, c_, block, append, insert, delete.
import numpy as np

x = np.arange(4)
y = x ** 2
print(np.column_stack([x, y]))
print(np.vstack([x, y]).shape, np.hstack([x, y]).shape, np.dstack([x, y]).shape)
print(np.r_[0:3, 10, [7, 8]])
print(np.r_[-1:1:5j])
print(np.c_[x, y, x + y])
A = np.eye(2, dtype=int)
B = np.full((2, 3), 7)
print(np.block([[A, B], [np.zeros((1, 2), dtype=int), np.ones((1, 3), dtype=int)]]))
print(np.append(x, [9, 9]), np.append(A, [[5, 6]], axis=0).shape)
print(np.insert(x, 2, -1), np.insert(x, [1, 3], [100, 300]))
print(np.delete(x, [0, 2]), np.delete(np.arange(12).reshape(3, 4), 1, axis=1))
print(np.concatenate([x[None], y[None]], axis=0))
print(np.concatenate([A, B], axis=None))
result = (np.c_[x, y, x + y], np.insert(x, [1, 3], [100, 300]), np.r_[0:3, 10, [7, 8]])
