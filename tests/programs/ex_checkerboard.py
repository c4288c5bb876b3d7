# Build an 8x8 checkerboard pattern with strided slice assignment.
import numpy as np

Z = np.zeros((8, 8), dtype=int)
Z[1::2, ::2] = 1
Z[::2, 1::2] = 1
print(Z)
print("ones:", Z.sum())
result = Z
