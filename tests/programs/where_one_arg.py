# np.where with one argument gives positions; with three it selects.
import numpy as np

rng = np.random.default_rng(9)
x = rng.integers(-5, 6, 12)
pos = np.where(x > 0)
print(x)
print("positive at:", pos[0])
print("values:", x[pos])
y = np.where(x > 0, x, 0)
print(y)
grid = np.arange(16).reshape(4, 4)
r, c = np.where(grid % 5 == 0)
print(list(zip(r.tolist(), c.tolist())))
result = (pos[0], y)
