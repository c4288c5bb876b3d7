# 1-D convolution and correlation of a signal with small kernels.
import numpy as np

sig = np.array([0, 0, 1, 2, 3, 2, 1, 0, 0, 5, 0], dtype=float)
k = np.array([1, 2, 1]) / 4
print(np.convolve(sig, k, mode="same"))
print(np.convolve(sig, k, mode="valid"))
print(np.convolve(sig, [1, -1]))
print(np.correlate(sig, [1, 0, -1], mode="full"))
result = np.convolve(sig, k, mode="same")
