# In-place updates through views of a larger array (interior, strided, column).
import numpy as np

U = np.zeros((8, 8))
u = U[1:-1, 1:-1]
u += 1
u[::2, ::2] *= 3
col = U[:, 0]
col[:] = 7
row = U[-1]
row -= 2
print(U)
print("u sees the writes:", u.sum(), "column:", col)
result = U
