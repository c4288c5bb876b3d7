# Particles moving in a unit box, reflecting off the walls.
import numpy as np

rng = np.random.default_rng(0)
n = 50
pos = rng.random((n, 2))
vel = rng.normal(0, 0.05, (n, 2))
for step in range(40):
    pos += vel
    out = (pos < 0) | (pos > 1)
    vel[out] *= -1
    pos = np.clip(pos, 0, 1)
print("mean position:", pos.mean(axis=0).round(6))
print("mean speed:", f"{np.linalg.norm(vel, axis=1).mean():.6f}")
print("left half:", (pos[:, 0] < 0.5).sum())
result = (pos, vel)
