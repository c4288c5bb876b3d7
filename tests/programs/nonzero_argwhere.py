# Indices of non-zero elements with nonzero, flatnonzero and argwhere.
import numpy as np

a = np.array([1, 2, 0, 0, 4, 0])
print(np.nonzero(a))
M = np.array([[0, 3, 0], [5, 0, 6], [0, 0, 7]])
rows, cols = np.nonzero(M)
print(rows, cols, M[rows, cols])
print(np.argwhere(M > 4))
print(np.flatnonzero(M))
print("count:", np.count_nonzero(M))
result = (rows, cols, np.argwhere(M > 4))
