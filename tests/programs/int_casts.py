# Integer casts: int8 wrap, float truncation toward zero, round half to even, int32 overflow in cumprod.
import numpy as np

a = np.array([100, 127, 128, 200, 255, 256, -129])
print(a.astype(np.int8))
print(a.astype(np.uint8))
f = np.array([-2.7, -2.5, -0.5, 0.5, 1.5, 2.5, 2.7])
print(f.astype(int))
print(np.round(f), np.rint(f))
print(np.floor(f), np.ceil(f), np.trunc(f))
n = np.arange(1, 16, dtype=np.int32)
print(np.cumprod(n))
print(np.multiply.accumulate(n, dtype=np.int32)[-4:], np.cumsum(n, dtype=np.int8)[-3:])
b = np.array([250, 5], dtype=np.uint8)
print(b + b, b - np.uint8(10), (b * 2).dtype)
print(np.array([1, 2]) // np.array([-2, 2]), np.array([7, -7]) % 3)
result = (a.astype(np.int8), f.astype(int), np.cumprod(n))
