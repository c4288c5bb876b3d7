# Power iteration for the dominant eigenvalue, looping until the vector settles.
import numpy as np

rng = np.random.default_rng(5)
M = rng.random((8, 8))
A = M @ M.T
v = np.ones(8) / np.sqrt(8)
delta = 1.0
it = 0
while delta > 1e-10 and it < 500:
    w = A @ v
    w /= np.linalg.norm(w)
    delta = np.linalg.norm(w - v)
    v = w
    it += 1
lam = v @ A @ v
print("iterations:", it)
print(f"dominant eigenvalue: {lam:.8f}")
print(f"numpy says:          {np.linalg.eigvalsh(A)[-1]:.8f}")
result = (lam, v)
