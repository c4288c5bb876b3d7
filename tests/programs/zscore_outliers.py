# Flag z-score outliers and replace them with the median.
import numpy as np

rng = np.random.default_rng(3)
x = np.round(rng.normal(0, 1, 100), 3)
x[[10, 50, 90]] = [8.0, -7.5, 9.0]
z = (x - x.mean()) / x.std()
outliers = np.abs(z) > 3
print("outliers at:", np.flatnonzero(outliers))
x[outliers] = np.median(x)
print(f"cleaned mean {x.mean():.5f} std {x.std():.5f}")
result = x
