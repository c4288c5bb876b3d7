# Writing through loop variables: `for row in A` yields views, so in-place ops change A.
import numpy as np

A = np.zeros((4, 3))
for i, row in enumerate(A):
    row += i
    row[0] = -i
print(A)
for col in A.T:
    col *= 2
print(A)
B = np.arange(12).reshape(3, 4)
for row in B:
    row[:] = row[::-1]
print(B)
C = np.arange(6).reshape(2, 3)
for row in C:
    row = row * 10
print(C)
D = np.arange(24).reshape(2, 3, 4)
for plane in D:
    for r in plane:
        r[r % 2 == 1] = 0
print(D[1])
E = np.ones((2, 2))
for x in E.flat:
    x += 1
print(E)
result = (A, B, C, D, E)
