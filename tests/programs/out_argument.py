# Ufuncs writing into existing arrays with out=.
import numpy as np

a = np.arange(6, dtype=float)
b = np.ones(6)
np.add(a, b, out=a)
np.multiply(a, 2, out=a)
c = np.empty(6)
np.sqrt(a, out=c)
np.subtract(c[::2], 1, out=c[::2])
print(a)
print(c.round(6))
M = np.arange(9.0).reshape(3, 3)
np.exp(M[0], out=M[1])
print(M.round(4))
s = np.zeros(3)
np.sum(M, axis=0, out=s)
print(s.round(4))
result = (a, c, M, s)
