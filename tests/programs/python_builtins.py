# Python built-ins on arrays: sum, max, sorted, list, zip, dict keys, set, in, any, all, len, range.
import numpy as np

a = np.array([4, 1, 3, 1, 5])
print(sum(a), max(a), min(a), [int(v) for v in sorted(a)], len(a))
print(len(list(a)), [int(v) ** 2 for v in a], any(a > 4), all(a > 0))
counts = {}
for v in a:
    counts[int(v)] = counts.get(int(v), 0) + 1
print(counts)
print(set(a.tolist()), 3 in a, 7 in a)
names = ["w", "x", "y", "z", "q"]
print(dict(zip(names, a.tolist())))
best = names[int(np.argmax(a))]
print(best, names[a.argmin()])
total = 0.0
for i in range(len(a)):
    total += a[i] / 2
print(total)
print(abs(np.array([-2.5, 1.0])), round(np.float64(2.675), 2), divmod(np.array([7, 8]), 3))
x = np.array(9)
print(x ** 0.5, -x, x % 4, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10][x])
result = (a, total, counts[1])
