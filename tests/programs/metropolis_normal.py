# Metropolis sampling of a standard normal with a random-walk proposal.
import numpy as np

rng = np.random.default_rng(11)
n = 3000
samples = np.empty(n)
x = 3.0
accepted = 0
steps = rng.normal(0, 1.0, size=n)
u = rng.random(n)
for i in range(n):
    prop = x + steps[i]
    if np.log(u[i]) < 0.5 * (x * x - prop * prop):
        x = prop
        accepted += 1
    samples[i] = x
burned = samples[500:]
print(f"acceptance: {accepted / n:.3f}")
print(f"mean {burned.mean():.3f} std {burned.std():.3f}")
hist, edges = np.histogram(burned, bins=8, range=(-4, 4))
print(hist)
print(edges)
result = (hist, samples[-5:])
