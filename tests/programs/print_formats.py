# Printing arrays and numbers: str, repr, f-strings, tolist.
import numpy as np

x = np.linspace(0, 1, 5)
print(x)
print(repr(x))
print(f"mean={x.mean():.3f} last={x[-1]:8.4f} sum={x.sum():e}")
print("as list:", x.tolist())
i = np.arange(3, dtype=np.int8)
print(repr(i), i.dtype, str(i))
M = np.arange(6).reshape(2, 3)
print(M)
print(repr(M))
print("{:.2%}".format(x[1]))
print(int(M.sum()), float(x[2]), bool(x.any()))
b = np.array([True, False])
print(b, repr(b))
result = (x, M)
