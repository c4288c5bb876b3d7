# Type promotion between integer and float arrays and Python scalars, and casts.
import numpy as np

i8 = np.array([100, 120, -100], dtype=np.int8)
print((i8 + 1).dtype, i8 + 1)
print((i8 + 1.5).dtype, i8 + 1.5)
print((i8 + np.int16(1)).dtype)
f32 = np.array([1.5, 2.5], dtype=np.float32)
print((f32 * 2).dtype, (f32 * np.float64(2)).dtype, (f32 + np.arange(2)).dtype)
print(np.array([1, 2, 3]) / 2, (np.array([1, 2, 3]) // 2).dtype)
print(np.array([3.7, -2.2, 1e10]).astype(np.int64))
print(np.array([1.5, 2.5, 3.5]).round(), np.rint(np.array([0.5, 1.5])))
b = np.array([True, False, True])
print(b + b, (b + b).dtype, b.sum(), b.mean())
result = (i8 + 1, f32 * 2, b.sum())
