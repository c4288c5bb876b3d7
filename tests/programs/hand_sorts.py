# Sorting algorithms written out by hand on arrays: bubble, insertion by slice shifts, selection.
import numpy as np

rng = np.random.default_rng(171)
data = rng.integers(0, 100, size=12)
print("data:", data)

a = data.copy()
swaps = 0
for i in range(len(a)):
    for j in range(len(a) - 1 - i):
        if a[j] > a[j + 1]:
            a[j], a[j + 1] = a[j + 1], a[j]
            swaps += 1
print("bubble:", a, "swaps:", swaps)

b = data.copy()
for i in range(1, len(b)):
    key = b[i]
    j = i
    while j > 0 and b[j - 1] > key:
        j -= 1
    b[j + 1:i + 1] = b[j:i].copy()
    b[j] = key
print("insertion:", b)

c = data.astype(float)
for i in range(len(c)):
    m = i + np.argmin(c[i:])
    c[[i, m]] = c[[m, i]]
print("selection:", c)
print("all agree:", np.array_equal(a, np.sort(data)), np.array_equal(a, b), np.array_equal(a, c))
result = (a, b, c)
