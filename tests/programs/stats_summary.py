# Summary statistics of a normal sample: mean, std, median, percentiles.
import numpy as np

rng = np.random.default_rng(0)
x = rng.normal(50, 10, 200)
print(f"mean   {x.mean():.4f}")
print(f"std    {x.std():.4f}  (ddof=1: {x.std(ddof=1):.4f})")
print(f"var    {np.var(x):.4f}")
print(f"median {np.median(x):.4f}")
q = np.percentile(x, [5, 25, 75, 95])
print("percentiles:", q.round(4))
print("quantile 0.5:", np.quantile(x, 0.5))
print("min/max:", x.min().round(4), x.max().round(4), "ptp:", np.ptp(x).round(4))
result = (x.mean(), x.std(), q)
