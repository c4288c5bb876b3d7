# Sliding tiles: rotate a board by a count read from data, split it into strips, count moves.
import numpy as np

board = np.arange(1, 17).reshape(4, 4)
moves = np.array([1, 3, 2, 5, 0, 7])
turns = moves.sum() % 4
biggest = moves.max()
rotated = np.rot90(board, k=biggest)
print("quarter turns from data:", turns, "max move:", biggest)
print(rotated)
rotated[0, 0] = 0
print("board after writing the rotated view:\n", board)
strips = np.split(board, moves.min() + 2, axis=1)
strips[1][:] = -strips[1]
print(board)
k = moves[3]
spun = np.rot90(board, k)
print(spun[0], "k still", k)
result = (board, spun, k)
