# Stacking, concatenating and splitting arrays.
import numpy as np

a = np.arange(6).reshape(2, 3)
b = np.arange(6, 12).reshape(2, 3)
print(np.vstack([a, b]))
print(np.hstack([a, b]))
print(np.stack([a, b], axis=-1).shape)
c = np.concatenate([a, b], axis=None)
print(c)
parts = np.split(c, 3)
print(parts)
left, right = np.hsplit(np.hstack([a, b]), 2)
print(left, right, sep="\n")
print(np.array_split(np.arange(7), 3))
print(np.column_stack([np.arange(3), np.arange(3) ** 2]))
result = (c, left, right)
