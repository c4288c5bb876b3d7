# Unbuffered accumulation with np.add.at and np.maximum.at into a 2-D grid.
import numpy as np

rng = np.random.default_rng(5)
pts = rng.integers(0, 8, size=(100, 2))
grid = np.zeros((8, 8), dtype=int)
np.add.at(grid, (pts[:, 0], pts[:, 1]), 1)
print(grid)
print("total:", grid.sum())
best = np.zeros(8)
vals = rng.random(100)
np.maximum.at(best, pts[:, 0], vals)
print(best.round(4))
result = (grid, best)
