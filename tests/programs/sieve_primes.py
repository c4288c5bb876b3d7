# Sieve of Eratosthenes: find the primes below 200.
import numpy as np

n = 200
is_prime = np.ones(n, dtype=bool)
is_prime[:2] = False
for i in range(2, int(np.sqrt(n)) + 1):
    if is_prime[i]:
        is_prime[i * i::i] = False
primes = np.nonzero(is_prime)[0]
print(primes)
print("count:", len(primes), "sum:", primes.sum())
result = primes
