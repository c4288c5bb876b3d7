# A chain of masses and springs: normal modes from eigh, then symplectic Euler with energy tracking.
import numpy as np

n = 5
k, m = 1.0, 1.0
K = 2 * k * np.eye(n) - k * np.eye(n, k=1) - k * np.eye(n, k=-1)
w2, modes = np.linalg.eigh(K / m)
print("mode frequencies:", np.round(np.sqrt(w2), 5))
x = modes[:, 0] * 0.5 + modes[:, 2] * 0.2
v = np.zeros(n)
dt = 0.05
energy = []
for step in range(200):
    v -= dt * (K @ x) / m
    x += dt * v
    energy.append(0.5 * m * v @ v + 0.5 * x @ K @ x)
energy = np.array(energy)
print("energy drift:", f"{energy.max() - energy.min():.2e}")
print("positions:", np.round(x, 5))
amps = modes.T @ x
print("mode amplitudes:", np.round(amps, 5))
result = (np.round(x, 10), np.round(energy[::40], 10))
