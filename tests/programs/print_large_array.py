# Printing big arrays shows a summary with ellipses.
import numpy as np

a = np.arange(2000)
print(a)
M = np.arange(10000, dtype=float).reshape(100, 100) / 7
print(M)
print(M.shape, M.dtype, M.size)
result = M
