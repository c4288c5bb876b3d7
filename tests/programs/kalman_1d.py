# A one-dimensional constant-velocity Kalman filter tracking a noisy position.
import numpy as np

rng = np.random.default_rng(101)
dt = 1.0
F = np.array([[1, dt], [0, 1]])
H = np.array([[1.0, 0.0]])
Q = 0.01 * np.eye(2)
R = np.array([[4.0]])
truth = 0.5 * np.arange(30)
z = truth + rng.normal(0, 2, 30)
x = np.zeros((2, 1))
P = np.eye(2) * 10
est = []
for k in range(30):
    x = F @ x
    P = F @ P @ F.T + Q
    S = H @ P @ H.T + R
    K = P @ H.T @ np.linalg.inv(S)
    x = x + K @ (z[k] - H @ x)
    P = (np.eye(2) - K @ H) @ P
    est.append(x[0, 0])
est = np.array(est)
print("velocity estimate:", round(float(x[1, 0]), 4))
print("raw error:", round(float(np.abs(z - truth).mean()), 4), "filtered:", round(float(np.abs(est - truth)[10:].mean()), 4))
print(np.round(est[-5:], 3))
print(np.round(P, 5))
result = (np.round(est, 6), np.round(P, 8))
