# 1-D wave equation with a plucked string, leapfrog in time.
import numpy as np

n = 101
x = np.linspace(0, 1, n)
u = np.exp(-200 * (x - 0.3) ** 2)
u_prev = u.copy()
c2 = 0.25  # (c dt / dx)^2
for step in range(120):
    u_next = np.zeros_like(u)
    u_next[1:-1] = 2 * u[1:-1] - u_prev[1:-1] + c2 * (u[2:] - 2 * u[1:-1] + u[:-2])
    u_prev, u = u, u_next
print(f"energy-ish: {np.sum(u**2):.6f}")
print("peak at x =", x[np.argmax(np.abs(u))])
print(u[::10].round(4))
result = u
