# Sobel edge detection on a generated image of a square, then thresholding.
import numpy as np

img = np.zeros((64, 64))
img[16:48, 16:48] = 1.0
img += 0.1 * np.sin(np.arange(64) / 5.0)[None, :]
gx = np.zeros_like(img)
gy = np.zeros_like(img)
gx[1:-1, 1:-1] = ((img[:-2, 2:] + 2 * img[1:-1, 2:] + img[2:, 2:])
                  - (img[:-2, :-2] + 2 * img[1:-1, :-2] + img[2:, :-2]))
gy[1:-1, 1:-1] = ((img[2:, :-2] + 2 * img[2:, 1:-1] + img[2:, 2:])
                  - (img[:-2, :-2] + 2 * img[:-2, 1:-1] + img[:-2, 2:]))
mag = np.hypot(gx, gy)
edges = mag > 1.0
print("edge pixels:", edges.sum())
print(f"max magnitude: {mag.max():.4f}")
print(edges[14:19, 14:19].astype(int))
result = (mag, edges)
