# Linear interpolation of tabulated data onto a finer grid.
import numpy as np

xp = np.array([0.0, 1.0, 2.0, 4.0, 8.0])
fp = np.array([0.0, 1.0, 4.0, 16.0, 64.0])
x = np.linspace(-1, 9, 21)
y = np.interp(x, xp, fp)
print(y)
y2 = np.interp(x, xp, fp, left=-1, right=-2)
print(y2)
print("geomspace:", np.geomspace(1, 1000, 4))
print("logspace:", np.logspace(0, 2, 3))
result = (y, y2)
