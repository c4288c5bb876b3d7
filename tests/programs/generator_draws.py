# A seeded Generator: integer, normal, uniform and discrete draws, shuffling and permutations.
import numpy as np

rng = np.random.default_rng(2024)
print(rng.integers(0, 10, size=8))
print(rng.integers(5, size=(2, 3)))
print(np.round(rng.normal(10, 2, size=4), 4))
print(np.round(rng.uniform(-1, 1, size=3), 4))
print(rng.choice(np.array([2, 4, 6, 8, 10]), size=3, replace=False))
print(rng.choice(4, size=6, p=[0.1, 0.2, 0.3, 0.4]))
deck = np.arange(10)
rng.shuffle(deck)
print(deck)
print(rng.permutation(6))
M = np.arange(12).reshape(4, 3)
print(rng.permutation(M))
print(round(float(rng.standard_normal()), 6), rng.random(2).round(4))
print(rng.binomial(10, 0.5, size=5), rng.poisson(3.0, size=5))
result = (deck, rng.integers(0, 100, 5))
