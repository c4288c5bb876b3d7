# Zero-dimensional arrays and NumPy scalars: arithmetic, item(), comparisons, indexing.
import numpy as np

x = np.array(3.0)
x += 1
print(x, x.shape, x.ndim, repr(x))
print(x.item(), float(x) * 2, int(x) + 1)
s = np.float32(2.5)
print(s, type(s * 2).__name__, repr(s * 2))
v = np.arange(5)
total = v.sum()
print(total, total + 1, total > 5, repr(total))
print(v[total % 5], v[-1] == 4, 3 in v, len(v))
m = np.max(v) / 2
print(m, type(m).__name__)
result = (x, total, m)
