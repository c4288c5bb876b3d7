# Bootstrap confidence interval for the mean of a small sample.
import numpy as np

rng = np.random.default_rng(10)
data = rng.exponential(2.0, 40)
idx = rng.integers(0, len(data), size=(300, len(data)))
means = data[idx].mean(axis=1)
lo, hi = np.percentile(means, [2.5, 97.5])
print(f"sample mean {data.mean():.4f}")
print(f"95% CI [{lo:.4f}, {hi:.4f}]")
result = (means, lo, hi)
