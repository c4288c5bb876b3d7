# Swapping with tuple assignment: fine for elements, but rows are views, so copies are needed.
import numpy as np

v = np.array([5, 6, 7, 8])
v[0], v[3] = v[3], v[0]
print("elements:", v)
A = np.arange(9).reshape(3, 3)
A[0], A[2] = A[2], A[0]
print("views swap wrongly:\n", A)
B = np.arange(9).reshape(3, 3)
B[0], B[2] = B[2].copy(), B[0].copy()
print("copies swap:\n", B)
C = np.arange(9).reshape(3, 3)
C[[0, 2]] = C[[2, 0]]
print("fancy swap:\n", C)
D = np.arange(9).reshape(3, 3)
D[:, [0, 1]] = D[:, [1, 0]]
print("column swap:\n", D)
a = np.arange(6)
a[1:], a[:-1] = a[:-1], a[1:]
print("shift:", a)
result = (v, A, B, C, D, a)
