# Iterating over the rows of a matrix yields views: scaling each row changes the matrix.
import numpy as np

M = np.arange(12.0).reshape(4, 3)
for i, row in enumerate(M):
    row *= i + 1
print(M)
for col in M.T:
    col -= col.mean()
print(M.round(4))
rows = [M[i] for i in range(4)]
rows[2][:] = -1
print(M[2])
result = M
