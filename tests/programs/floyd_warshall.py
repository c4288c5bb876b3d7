# All-pairs shortest paths by Floyd-Warshall, updating the distance matrix in place with out=.
import numpy as np

n = 6
inf = np.inf
D = np.full((n, n), inf)
np.fill_diagonal(D, 0)
edges = [(0, 1, 7), (0, 2, 9), (0, 5, 14), (1, 2, 10), (1, 3, 15),
         (2, 3, 11), (2, 5, 2), (3, 4, 6), (4, 5, 9)]
for u, v, w in edges:
    D[u, v] = D[v, u] = w
for k in range(n):
    np.minimum(D, D[:, k, None] + D[None, k, :], out=D)
print(D)
print("eccentricity:", D.max(axis=1))
center = np.argmin(D.max(axis=1))
print("center:", center, "diameter:", D.max())
print("symmetric:", np.array_equal(D, D.T))
result = D
