# Augmented assignment keeps the array's dtype: int32, float32 and uint8 wraparound.
import numpy as np

a = np.zeros(5, dtype=np.int32)
a += 3
a *= 7
a //= 2
a -= np.arange(5, dtype=np.int32)
print(a, a.dtype)
b = np.ones(4, dtype=np.float32)
b /= 3
b += 0.1
print(b, b.dtype)
u = np.array([250, 5, 128], dtype=np.uint8)
u += 10
print(u, u.dtype)
h = np.arange(6, dtype=np.int16)
h <<= 2
h |= 1
print(h)
result = (a, b, u, h)
