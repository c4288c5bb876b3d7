# Assignments whose right-hand side aliases the target: A += A.T, rotations in place, shifted copies.
import numpy as np

A = np.arange(9).reshape(3, 3)
A += A.T
print(A)
B = np.arange(16).reshape(4, 4)
B[:] = B.T[::-1]
print(B)
c = np.arange(8)
c[2:] = c[:-2]
print(c)
d = np.arange(8)
d[:-3] = d[3:]
print(d)
E = np.arange(6).reshape(2, 3)
E[:, 1:] = E[:, :-1] * 10
print(E)
F = np.arange(9.0).reshape(3, 3)
F -= F.mean(axis=0)
F /= np.abs(F).max(axis=0, keepdims=True)
print(F)
g = np.arange(5)
g[::-1] = g
print(g)
result = (A, B, c, d, E, F, g)
