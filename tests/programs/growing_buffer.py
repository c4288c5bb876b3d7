# A buffer that grows in place with ndarray.resize as samples arrive, then is trimmed to what was used.
import numpy as np

rng = np.random.default_rng(231)
buf = np.zeros(4)
used = 0
for batch in range(6):
    new = rng.normal(size=rng.integers(1, 5))
    while used + len(new) > len(buf):
        buf.resize(2 * len(buf))
        print("grew to", len(buf))
    buf[used:used + len(new)] = new
    used += len(new)
buf.resize(used)
print("used:", used, "mean:", round(float(buf.mean()), 6))
grid = np.arange(6)
grid.resize(3, 3)
print(grid)
result = (np.round(buf, 10), grid)
