# Single-teller bank queue: arrivals and service times drawn up front, waits by a recurrence.
import numpy as np

rng = np.random.default_rng(5)
n = 200
gaps = rng.exponential(2.0, n)
service = rng.exponential(1.6, n)
arrive = np.cumsum(gaps)
start = np.empty(n)
finish = np.empty(n)
free_at = 0.0
for k in range(n):
    start[k] = max(arrive[k], free_at)
    finish[k] = start[k] + service[k]
    free_at = finish[k]
wait = start - arrive
print(f"mean wait {wait.mean():.3f}, max wait {wait.max():.3f}")
print("customers who waited:", np.count_nonzero(wait > 0))
busy = service.sum() / finish[-1]
print(f"utilisation {busy:.3f}")
print("longest waits at:", np.argsort(wait)[-3:][::-1])
result = (np.round(wait, 6), np.round(finish[-1], 6))
