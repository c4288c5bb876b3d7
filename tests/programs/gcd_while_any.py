# Vectorised Euclid: loop while any pair still has a non-zero remainder.
import numpy as np

a = np.array([48, 17, 100, 81, 0, 36, 270])
b = np.array([18, 5, 75, 27, 9, 48, 192])
x, y = a.copy(), b.copy()
rounds = 0
while np.any(y != 0):
    nz = y != 0
    x[nz], y[nz] = y[nz], x[nz] % y[nz]
    rounds += 1
print("gcd:", x, "rounds:", rounds)
print("agrees:", np.array_equal(x, np.gcd(a, b)))
print("lcm:", np.lcm(a, b))
print("reduce gcd:", np.gcd.reduce(np.array([84, 126, 210])))
coprime = np.gcd.outer(np.arange(1, 7), np.arange(1, 7)) == 1
print(coprime.astype(int))
print("totients:", coprime.sum(axis=1))
result = (x, np.lcm(a, b), coprime)
