# A small gravitational N-body simulation with pairwise forces and leapfrog steps.
import numpy as np

rng = np.random.default_rng(3)
n = 8
pos = rng.normal(size=(n, 3))
vel = np.zeros((n, 3))
mass = np.full(n, 1.0 / n)
dt, eps = 0.01, 0.1


def accel(pos):
    d = pos[None, :, :] - pos[:, None, :]
    r2 = (d ** 2).sum(axis=-1) + eps ** 2
    inv = r2 ** -1.5
    np.fill_diagonal(inv, 0.0)
    return (d * (inv * mass[None, :])[:, :, None]).sum(axis=1)


a = accel(pos)
for step in range(50):
    vel += 0.5 * dt * a
    pos += dt * vel
    a = accel(pos)
    vel += 0.5 * dt * a
ke = 0.5 * (mass * (vel ** 2).sum(axis=1)).sum()
print(f"kinetic energy: {ke:.8f}")
print("centre of mass:", (mass[:, None] * pos).sum(axis=0).round(8))
result = (pos, vel)
