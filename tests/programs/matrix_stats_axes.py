# Reductions along different axes of a 3-D array, with keepdims and negative axes.
import numpy as np

T = np.arange(60).reshape(3, 4, 5) * 37 % 100
print(T.sum(axis=0))
print(T.max(axis=(1, 2)))
print(T.mean(axis=-1, keepdims=True).shape)
print(np.argmin(T, axis=1))
print(T.cumsum(axis=2)[0])
print(np.prod(T[:, 0, :2], axis=1))
print("std over everything:", round(float(T.std()), 6))
result = (T.sum(axis=0), T.cumsum(axis=2))
