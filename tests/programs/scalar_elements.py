# Array elements taken out one at a time are NumPy scalars: their repr, and their use as dict keys.
import numpy as np

a = np.array([3, 1, 3, 2, 3, 1])
print(list(a))
print(sorted(a)[:3], max(a), repr(a[2]))
counts = {}
for v in a:
    counts[v] = counts.get(v, 0) + 1
print(counts)
print("threes:", counts[3], "ones:", counts[1])
seen = set(a)
print(len(seen), 2 in seen)
pairs = list(zip(a[:3], np.arange(3.0)))
print(pairs)
result = (a, counts[3])
