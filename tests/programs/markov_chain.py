# Three-state weather Markov chain: stationary law by power, by eigenvectors and by simulation.
import numpy as np

P = np.array([[0.7, 0.2, 0.1],
              [0.3, 0.4, 0.3],
              [0.2, 0.3, 0.5]])
print("rows sum to one:", np.allclose(P.sum(axis=1), 1))
P50 = np.linalg.matrix_power(P, 50)
print(np.round(P50, 5))
w, v = np.linalg.eig(P.T)
k = np.argmin(np.abs(w - 1))
pi = np.real(v[:, k])
pi = pi / pi.sum()
print("stationary:", np.round(pi, 5))
rng = np.random.default_rng(7)
state = 0
counts = np.zeros(3, dtype=int)
for _ in range(2000):
    state = rng.choice(3, p=P[state])
    counts[state] += 1
print("visits:", counts, "freq:", counts / counts.sum())
result = (np.round(P50, 8), np.round(pi, 8), counts)
