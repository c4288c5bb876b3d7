# Lorenz system integrated with classical Runge-Kutta; trajectory stored row by row.
import numpy as np

def f(s, sigma=10.0, rho=28.0, beta=8.0 / 3.0):
    x, y, z = s
    return np.array([sigma * (y - x), x * (rho - z) - y, x * y - beta * z])

dt = 0.02
steps = 150
traj = np.zeros((steps + 1, 3))
traj[0] = [1.0, 1.0, 1.0]
for i in range(steps):
    s = traj[i]
    k1 = f(s)
    k2 = f(s + dt / 2 * k1)
    k3 = f(s + dt / 2 * k2)
    k4 = f(s + dt * k3)
    traj[i + 1] = s + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
print("final state:", np.round(traj[-1], 4))
print("z range:", round(float(traj[:, 2].min()), 4), round(float(traj[:, 2].max()), 4))
crossings = np.count_nonzero(np.diff(np.sign(traj[:, 0])) != 0)
print("x sign changes:", crossings)
result = np.round(traj[::25], 6)
