# Escape-time Mandelbrot set on a small grid with masked complex updates.
import numpy as np

h, w, maxit = 40, 60, 30
y, x = np.ogrid[-1.2:1.2:h * 1j, -2.0:0.8:w * 1j]
c = x + y * 1j
z = np.zeros_like(c)
count = np.zeros(c.shape, dtype=int)
for i in range(maxit):
    alive = np.abs(z) <= 2
    z[alive] = z[alive] ** 2 + c[alive]
    count[alive] += 1
print("inside:", (count == maxit).sum())
chars = " .:-=+*#%@"
for row in count[::4, ::2]:
    print("".join(chars[min(v * len(chars) // (maxit + 1), 9)] for v in row))
result = count
