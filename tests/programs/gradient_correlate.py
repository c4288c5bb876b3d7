# Numerical derivatives with gradient, and convolve/correlate in all three modes.
import numpy as np

x = np.linspace(0, 2, 9)
f = x ** 3
print(np.round(np.gradient(f, x), 4))
print(np.round(np.gradient(f, 0.25, edge_order=2), 4))
Z = np.outer(np.arange(4.0), np.arange(5.0) ** 2)
gy, gx = np.gradient(Z)
print(gy)
print(gx)
k = np.array([1, 2, 1])
s = np.array([0, 0, 1, 0, 0, 4, 0])
for mode in ["full", "same", "valid"]:
    print(mode, np.convolve(s, k, mode=mode), np.correlate(s, [1, 0, -1], mode=mode))
print(np.correlate([1, 2, 3], [0, 1, 0.5]))
print(np.convolve([1, 2, 3], [0, 1, 0.5]))
result = (np.gradient(f, x), gx, np.convolve(s, k, mode="same"))
