# Balls dropped under gravity, bouncing off the floor with damping.
import numpy as np

rng = np.random.default_rng(9)
y = rng.uniform(1, 5, 20)
vy = np.zeros(20)
g, dt = 9.81, 0.02
bounces = np.zeros(20, dtype=int)
for step in range(200):
    vy -= g * dt
    y += vy * dt
    hit = y < 0
    y[hit] = -y[hit]
    vy[hit] *= -0.8
    bounces[hit] += 1
print("heights:", y.round(3))
print("bounces:", bounces)
print("max height now:", y.max().round(4))
result = (y, vy, bounces)
