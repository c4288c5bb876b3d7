# Fit a line by least squares and print everything lstsq returns, then a fitted-vs-observed table.
import numpy as np

x = np.array([0.0, 1.0, 2.0, 3.0, 4.0, 5.0])
y = np.array([1.1, 2.9, 5.2, 7.1, 8.8, 11.2])
A = np.column_stack([x, np.ones_like(x)])
fit = np.linalg.lstsq(A, y, rcond=None)
print(fit)
(slope, icept), resid, rank, sv = fit
print(f"y = {slope:.4f} x + {icept:.4f}; rank {rank}; residual {resid[0]:.5f}")
pred = A @ fit[0]
for xi, yi, pi in zip(x, y, pred):
    print(f"{xi:4.1f} {yi:6.2f} {pi:8.4f} {yi - pi:+.4f}")
result = (np.round(fit[0], 10), np.round(sv, 10))
