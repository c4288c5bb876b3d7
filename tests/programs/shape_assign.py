# Change an array's shape in place by assigning to .shape, and resize with reshape(-1).
import numpy as np

a = np.arange(12)
a.shape = (3, 4)
print(a)
a.shape = (2, -1)
print(a, a.shape)
v = a.reshape(-1)
v[0] = 100
print(a)
a.shape = (12,)
print(a.ndim, a.shape)
result = a
