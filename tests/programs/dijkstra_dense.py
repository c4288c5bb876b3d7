# Dijkstra on a dense weight matrix: pick the nearest unvisited node by a masked argmin.
import numpy as np

rng = np.random.default_rng(141)
n = 8
W = rng.integers(1, 20, size=(n, n)).astype(float)
W[rng.random((n, n)) < 0.5] = np.inf
np.fill_diagonal(W, 0)
dist = np.full(n, np.inf)
prev = np.full(n, -1)
dist[0] = 0
visited = np.zeros(n, dtype=bool)
for _ in range(n):
    cand = np.where(visited, np.inf, dist)
    u = np.argmin(cand)
    if np.isinf(cand[u]):
        break
    visited[u] = True
    alt = dist[u] + W[u]
    better = alt < dist
    dist[better] = alt[better]
    prev[better] = u
print("dist:", dist)
print("prev:", prev)
path = [n - 1]
while prev[path[-1]] != -1:
    path.append(prev[path[-1]])
print("path to last:", [int(p) for p in path[::-1]] if np.isfinite(dist[-1]) else "unreachable")
result = (dist, prev)
