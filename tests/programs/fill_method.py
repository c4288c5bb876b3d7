# a.fill(value) on whole arrays and on views.
import numpy as np

a = np.empty(5)
a.fill(0)
print(a)
M = np.arange(20).reshape(4, 5)
M[1:3].fill(-1)
M[:, -1].fill(8)
print(M)
f = np.empty((2, 3), dtype=np.float32)
f.fill(np.pi)
print(f, f.dtype)
result = (a, M, f)
