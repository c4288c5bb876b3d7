# Writes through several kinds of views: strided slices, transposes, reshapes, ravel, swapaxes.
import numpy as np

a = np.arange(10)
a[::2] += 100
print(a)
a[1::3] *= -1
print(a)
M = np.zeros((3, 4), dtype=int)
M.T[...] = np.arange(4)[:, None] * 10
print(M)
M.T[0] = -1
print(M)
flat = np.arange(12)
flat.reshape(3, 4)[1, :] = 0
print(flat)
r = flat.reshape(3, 4)
r[:, 0] = 99
print(flat)
S = np.arange(24).reshape(2, 3, 4)
S.swapaxes(0, 2)[1] = 0
print(S[0])
v = M.ravel()
print(np.shares_memory(v, M), v)
rev = a[::-1]
rev[:3] = 7
print(a)
result = (a, M, flat, S)
