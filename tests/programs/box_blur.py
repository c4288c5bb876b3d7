# 3x3 box blur of a generated 64x64 image (a bright disc on a gradient).
import numpy as np

n = 64
yy, xx = np.mgrid[0:n, 0:n]
img = xx / n + ((xx - 32) ** 2 + (yy - 32) ** 2 < 100) * 1.0
out = np.zeros_like(img)
out[1:-1, 1:-1] = sum(img[1 + dy:n - 1 + dy, 1 + dx:n - 1 + dx]
                      for dy in (-1, 0, 1) for dx in (-1, 0, 1)) / 9.0
print(f"mean before {img.mean():.6f} after {out[1:-1, 1:-1].mean():.6f}")
print(out[20:24, 20:24].round(4))
result = out
