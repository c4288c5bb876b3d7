# Sorting in place and out of place, along rows and columns.
import numpy as np

rng = np.random.default_rng(3)
a = rng.permutation(20)
b = np.sort(a)
print("sorted copy:", b)
a.sort()
print("sorted in place:", a)
M = rng.permutation(24).reshape(4, 6)
M.sort(axis=0)
print(M)
r = M[1]
r.sort()
print("row 1 sorted through a view:", M[1])
desc = np.sort(rng.permutation(10))[::-1]
print("descending:", desc)
result = (a, M, desc)
