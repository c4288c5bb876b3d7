# Assignments where source and destination overlap: shifts and reversals.
import numpy as np

a = np.arange(10)
a[1:] = a[:-1]
print(a)
b = np.arange(10)
b[:-2] = b[2:]
print(b)
c = np.arange(8)
c[:] = c[::-1]
print(c)
d = np.arange(9).reshape(3, 3)
d[:] = d.T
print(d)
e = np.arange(6.0)
e[1:] += e[:-1]
print(e)
result = (a, b, c, d, e)
