# Many random walkers in a box with reflecting walls; loop until all have hit the right wall once.
import numpy as np

rng = np.random.default_rng(51)
n, L = 20, 10
pos = np.full(n, L // 2)
hit = np.zeros(n, dtype=bool)
first = np.full(n, -1)
t = 0
while not np.all(hit) and t < 2000:
    pos += rng.choice([-1, 1], size=n)
    low = pos < 0
    pos[low] = -pos[low]
    over = pos > L
    pos[over] = 2 * L - pos[over]
    new = (pos == L) & ~hit
    first[new] = t
    hit |= new
    t += 1
print("steps:", t)
print("first hits:", first)
print("mean first hit:", first.mean(), "slowest walker:", np.argmax(first))
print("positions:", pos, pos.min() >= 0, pos.max() <= L)
result = (first, pos)
