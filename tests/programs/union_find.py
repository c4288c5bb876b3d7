# Union-find over an edge list with path halving; parent pointers live in an int array.
import numpy as np

n = 12
parent = np.arange(n)
size = np.ones(n, dtype=int)

def find(x):
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x

edges = np.array([[0, 1], [2, 3], [1, 3], [4, 5], [6, 7], [5, 7], [8, 9], [3, 9], [10, 11]])
for u, v in edges:
    ru, rv = find(u), find(v)
    if ru == rv:
        continue
    if size[ru] < size[rv]:
        ru, rv = rv, ru
    parent[rv] = ru
    size[ru] += size[rv]
roots = np.array([find(i) for i in range(n)])
labels, comp = np.unique(roots, return_inverse=True)
print("component of each node:", comp)
print("sizes:", np.bincount(comp))
print("largest:", np.flatnonzero(comp == np.argmax(np.bincount(comp))))
result = (comp, parent)
