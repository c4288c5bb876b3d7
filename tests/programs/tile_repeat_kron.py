# Building block patterns with tile, repeat (scalar and per-element counts) and kron.
import numpy as np

a = np.array([1, 2, 3])
print(np.tile(a, 2), np.tile(a, (2, 2)).shape)
print(np.repeat(a, 2))
print(np.repeat(a, [3, 0, 2]))
M = np.array([[1, 2], [3, 4]])
print(np.repeat(M, 2, axis=0))
print(np.repeat(M, [1, 3], axis=1))
print(np.tile(M, (1, 3)))
up = M.repeat(3, axis=0).repeat(3, axis=1)
print("upscaled:", up.shape, np.array_equal(up, np.kron(M, np.ones((3, 3), dtype=int))))
board = np.kron(np.tile([[1, 0], [0, 1]], (2, 2)), np.ones((1, 2), dtype=int))
print(board)
print(np.kron(np.eye(2), M))
result = (np.repeat(a, [3, 0, 2]), up, board)
