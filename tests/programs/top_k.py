# The k largest scores and their positions.
import numpy as np

rng = np.random.default_rng(8)
scores = rng.permutation(50) * 1.5
k = 5
order = np.argsort(-scores)[:k]
print("top positions:", order)
print("top scores:", scores[order])
part = np.partition(scores, -k)[-k:]
print("via partition:", np.sort(part)[::-1])
print("k-th largest:", np.sort(scores)[-k])
result = (order, scores[order])
