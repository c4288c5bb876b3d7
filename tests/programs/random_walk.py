# Five random walks of 200 steps: positions, first passage of |x| >= 10, extremes.
import numpy as np

rng = np.random.default_rng(1)
steps = rng.choice([-1, 1], size=(5, 200))
walks = np.cumsum(steps, axis=1)
print("final:", walks[:, -1])
crossed = np.abs(walks) >= 10
print("first passage:", crossed.argmax(axis=1))
print("ever crossed:", crossed.any(axis=1))
print("max:", walks.max(axis=1), "min:", walks.min(axis=1))
result = walks
