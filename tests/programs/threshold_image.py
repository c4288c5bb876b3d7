# Threshold a random 8-bit image: bright pixels to 255, dark ones to 0.
import numpy as np

rng = np.random.default_rng(12)
img = np.floor(rng.random((64, 64)) * 255).astype(np.uint8)
t = 128
img[img > t] = 255
img[img <= 50] = 0
print("white:", (img == 255).sum(), "black:", (img == 0).sum())
print("dtype:", img.dtype, "mean:", img.mean())
print(img[:4, :6])
result = img
