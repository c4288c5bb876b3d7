# Round a float array away from zero, two different ways.
import numpy as np

rng = np.random.default_rng(3)
Z = rng.uniform(-10, +10, 10)
R = np.copysign(np.ceil(np.abs(Z)), Z)
print(R)
R2 = np.where(Z > 0, np.ceil(Z), np.floor(Z))
print(R2)
print("agree:", (R == R2).all())
result = R
