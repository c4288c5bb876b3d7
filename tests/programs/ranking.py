# Ranks from argsort of argsort, competition ranks for ties, and percentiles of scores.
import numpy as np

scores = np.array([88, 92, 75, 92, 60, 88, 99, 75, 70])
order = np.argsort(-scores, kind="stable")
rank = np.empty_like(order)
rank[order] = np.arange(1, len(scores) + 1)
print("order:", order)
print("rank :", rank)
print("rank2:", np.argsort(np.argsort(-scores, kind="stable"), kind="stable") + 1)
uniq, inv = np.unique(-scores, return_inverse=True)
dense = inv + 1
print("dense:", dense)
sorted_desc = np.sort(scores)[::-1]
comp = np.searchsorted(-sorted_desc, -scores, side="left") + 1
print("competition:", comp)
pct = 100.0 * (np.searchsorted(np.sort(scores), scores, side="right")) / len(scores)
print("percentile:", np.round(pct, 1))
result = (rank, dense, comp)
