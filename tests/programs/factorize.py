# Trial-division factorisation of array elements, looping on NumPy integers.
import numpy as np

nums = np.array([360, 97, 1001, 2 ** 10, 9973 * 3, 84])
primes = np.array([p for p in range(2, 200) if all(p % q for q in range(2, int(p ** 0.5) + 1))])
table = []
for n in nums:
    m = n
    factors = []
    for p in primes:
        if p * p > m:
            break
        while m % p == 0:
            factors.append(int(p))
            m //= p
    if m > 1:
        factors.append(int(m))
    table.append(factors)
    print(n, "=", " * ".join(str(f) for f in factors))
omega = np.array([len(f) for f in table])
print("prime factor counts:", omega)
print("largest factors:", np.array([max(f) for f in table]))
result = omega
