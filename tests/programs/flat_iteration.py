# Element-wise Python loops with .flat, ndenumerate, ndindex, item and tolist.
import numpy as np

M = np.arange(1, 13).reshape(3, 4)
total = 0
for v in M.flat:
    total += int(v) if v % 2 else 0
print("odd total:", total)
for (i, j), v in np.ndenumerate(M[:2, :2]):
    print(i, j, v)
out = np.zeros_like(M)
for idx in np.ndindex(*M.shape):
    out[idx] = M[idx] * (idx[0] + 1)
print(out)
print(M.item(5), M.item((2, 3)), type(M.item(0)).__name__)
print(M.tolist())
print(M[1].tolist(), type(M[1].tolist()[0]).__name__)
F = np.linspace(0, 1, 3)
print(F.tolist(), np.float32(0.1).item())
print(M.flat[[0, 5, -1]], M.flat[3])
M.flat[[1, 2]] = 0
print(M[0])
result = (out, M)
