# Every kind of indexed assignment: scalar, slice, fancy, negative, broadcast rows.
import numpy as np

a = np.arange(12, dtype=float)
a[0] = -1
a[-1] = 99
a[2:5] = [20, 30, 40]
a[[6, 8]] = 0.5
a[::3] += 100
print(a)
M = np.zeros((4, 5), dtype=int)
M[1] = 7
M[:, 2] = np.arange(4)
M[2:, 3:] = [[1, 2], [3, 4]]
M[[0, 3], [4, 0]] = -5
M[..., 1] = 9
print(M)
result = (a, M)
