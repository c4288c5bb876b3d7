# Finite differences with diff and gradient, and a trapezoid integral.
import numpy as np

x = np.linspace(0, np.pi, 21)
y = np.sin(x)
dy = np.diff(y) / np.diff(x)
g = np.gradient(y, x)
print(dy[:5].round(5))
print(g[:5].round(5))
print(f"max error of gradient vs cos: {np.abs(g - np.cos(x)).max():.5f}")
area = np.trapezoid(y, x)
print(f"integral of sin over [0, pi]: {area:.6f}")
print(np.diff(np.array([1, 4, 9, 16, 25]), n=2))
result = (dy, g, area)
