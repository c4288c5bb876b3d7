# PageRank by power iteration on a small link graph, with dangling pages spread evenly.
import numpy as np

links = {0: [1, 2], 1: [2], 2: [0], 3: [2], 4: [], 5: [3, 4]}
n = len(links)
M = np.zeros((n, n))
for src, dsts in links.items():
    if dsts:
        M[dsts, src] = 1.0 / len(dsts)
dangling = M.sum(axis=0) == 0
d = 0.85
r = np.full(n, 1.0 / n)
for it in range(100):
    r_new = d * (M @ r + r[dangling].sum() / n) + (1 - d) / n
    delta = np.abs(r_new - r).sum()
    r = r_new
    if delta < 1e-12:
        break
print("iterations:", it + 1)
print("ranks:", np.round(r, 6), "sum:", round(float(r.sum()), 10))
order = np.argsort(-r)
for place, page in enumerate(order[:3], 1):
    print(f"{place}. page {page} score {r[page]:.4f}")
result = np.round(r, 10)
