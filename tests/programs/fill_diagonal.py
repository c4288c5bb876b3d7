# fill_diagonal on square and tall matrices, and a diagonal view being written.
import numpy as np

A = np.zeros((5, 5), dtype=int)
np.fill_diagonal(A, 3)
print(A)
T = np.zeros((6, 3))
np.fill_diagonal(T, [1, 2, 3], wrap=True)
print(T)
B = np.ones((4, 4))
np.fill_diagonal(B[:, ::-1], 0)
print(B)
result = (A, T, B)
