# 0/1 knapsack by dynamic programming over capacities, one vectorised update per item.
import numpy as np

weights = np.array([3, 4, 5, 9, 4])
values = np.array([3, 4, 4, 10, 4])
cap = 20
best = np.zeros(cap + 1, dtype=int)
take = np.zeros((len(weights), cap + 1), dtype=bool)
for k, (w, v) in enumerate(zip(weights, values)):
    cand = best[:-w] + v
    better = cand > best[w:]
    take[k, w:] = better
    best[w:] = np.where(better, cand, best[w:])
print("best value per capacity:", best)
c = cap
chosen = []
for k in range(len(weights) - 1, -1, -1):
    if take[k, c]:
        chosen.append(k)
        c -= weights[k]
chosen = np.array(sorted(chosen))
print("items:", chosen, "weight:", weights[chosen].sum(), "value:", values[chosen].sum())
result = (best, chosen)
