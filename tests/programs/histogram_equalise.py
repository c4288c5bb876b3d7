# Histogram equalisation of a low-contrast 8-bit image with a lookup table.
import numpy as np

rng = np.random.default_rng(6)
img = (rng.normal(100, 10, (64, 64))).clip(0, 255).astype(np.uint8)
hist, bins = np.histogram(img.flatten(), 256, [0, 256])
cdf = hist.cumsum()
cdf_min = cdf[cdf > 0].min()
lut = np.round((cdf - cdf_min) / (cdf[-1] - cdf_min) * 255).clip(0, 255).astype(np.uint8)
eq = lut[img]
print("range before:", img.min(), img.max())
print("range after:", eq.min(), eq.max())
print(f"std before {img.std():.3f} after {eq.std():.3f}")
result = eq
