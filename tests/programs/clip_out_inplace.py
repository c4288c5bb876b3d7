# In-place clipping and rounding with out=, and cumulative sums written into a preallocated array.
import numpy as np

x = np.linspace(-2, 2, 9)
np.clip(x, -1, 1, out=x)
print(x)
y = np.array([1.234, 5.678, -9.876])
np.round(y, 1, out=y)
print(y)
acc = np.empty(6)
np.cumsum(np.arange(6.0), out=acc)
print(acc)
m = np.arange(6.0).reshape(2, 3)
np.negative(m, out=m)
np.abs(m, out=m)
np.maximum(m, 2.5, out=m)
print(m)
result = (x, y, acc, m)
