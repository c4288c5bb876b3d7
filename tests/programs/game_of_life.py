# Conway's Game of Life on a random 64x64 board, neighbours counted by slicing.
import numpy as np


def iterate(Z):
    N = (Z[0:-2, 0:-2] + Z[0:-2, 1:-1] + Z[0:-2, 2:] +
         Z[1:-1, 0:-2] + Z[1:-1, 2:] +
         Z[2:, 0:-2] + Z[2:, 1:-1] + Z[2:, 2:])
    birth = (N == 3) & (Z[1:-1, 1:-1] == 0)
    survive = ((N == 2) | (N == 3)) & (Z[1:-1, 1:-1] == 1)
    Z[...] = 0
    Z[1:-1, 1:-1][birth | survive] = 1
    return Z


rng = np.random.default_rng(0)
Z = np.zeros((64, 64), dtype=int)
Z[rng.random((64, 64)) < 0.3] = 1
for i in range(20):
    Z = iterate(Z)
print("alive:", Z.sum())
print(Z[:8, :8])
result = Z
