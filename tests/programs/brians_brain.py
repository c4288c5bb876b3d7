# Brian's Brain cellular automaton: three states updated with neighbour counts from np.roll.
import numpy as np

rng = np.random.default_rng(81)
n = 16
grid = np.where(rng.random((n, n)) < 0.2, 1, 0).astype(np.int8)
for gen in range(12):
    on = grid == 1
    neigh = sum(np.roll(np.roll(on, dy, 0), dx, 1).astype(np.int8)
                for dy in (-1, 0, 1) for dx in (-1, 0, 1) if dy or dx)
    new = np.zeros_like(grid)
    new[(grid == 0) & (neigh == 2)] = 1
    new[on] = 2
    grid = new
    if gen % 4 == 3:
        print(gen, np.bincount(grid.ravel(), minlength=3))
for row in grid[:8]:
    print("".join(" #o"[c] for c in row))
result = grid
