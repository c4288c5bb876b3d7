# Swap two rows of a matrix with fancy indexing.
import numpy as np

A = np.arange(25).reshape(5, 5)
A[[0, 1]] = A[[1, 0]]
print(A)
A[:, [2, 4]] = A[:, [4, 2]]
print(A)
result = A
