# Single precision: rounding of sums, machine epsilon, mixed precision and float16 limits.
import numpy as np

x = np.full(1000, 0.1, dtype=np.float32)
print(x.sum(), x.sum(dtype=np.float64), x.dtype, x.sum().dtype)
acc = np.float32(0)
for v in x[:100]:
    acc += v
print(acc, acc.dtype)
print(np.cumsum(x)[[9, 99, 999]])
print(np.float32(1) + np.finfo(np.float32).eps > 1, np.float32(1) + np.float32(1e-8) == 1)
h = np.array([1000, 60000, 70000], dtype=np.float32).astype(np.float16)
print(h, np.finfo(np.float16).max)
m = np.array([1, 2], dtype=np.float32) * 1.5
print(m.dtype, (np.array([1, 2], dtype=np.float32) * np.float64(1.5)).dtype)
print(np.arange(5, dtype=np.float32) / 3)
print(np.float32(1 / 3), np.float64(1 / 3), np.float32(16777217.0))
y = np.linspace(0, 1, 5, dtype=np.float32)
print(y, y.mean(), np.sqrt(y).dtype)
result = (np.cumsum(x)[[9, 99, 999]], h, y)
