# Langton's ant on a small torus: turn on the cell colour, flip it, step.
import numpy as np

n = 21
grid = np.zeros((n, n), dtype=np.int8)
moves = np.array([[-1, 0], [0, 1], [1, 0], [0, -1]])
pos = np.array([n // 2, n // 2])
heading = 0
for step in range(400):
    y, x = pos
    if grid[y, x] == 0:
        heading = (heading + 1) % 4
    else:
        heading = (heading - 1) % 4
    grid[y, x] ^= 1
    pos = (pos + moves[heading]) % n
print("black cells:", grid.sum(), "ant at:", pos)
for row in grid[5:16]:
    print("".join("#" if c else "." for c in row[5:16]))
print("row counts:", grid.sum(axis=1))
result = (grid, pos)
