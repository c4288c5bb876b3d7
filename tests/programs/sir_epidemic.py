# SIR epidemic with forward Euler steps; history kept in a preallocated array.
import numpy as np

beta, gamma, dt = 0.3, 0.1, 0.5
steps = 200
state = np.array([0.99, 0.01, 0.0])
history = np.empty((steps + 1, 3))
history[0] = state
for t in range(steps):
    s, i, r = state
    new_inf = beta * s * i * dt
    new_rec = gamma * i * dt
    state = state + np.array([-new_inf, new_inf - new_rec, new_rec])
    history[t + 1] = state
peak = np.argmax(history[:, 1])
print("peak day:", peak * dt, "infected:", round(float(history[peak, 1]), 4))
print("final:", np.round(history[-1], 4))
print("conserved:", np.allclose(history.sum(axis=1), 1.0))
print("days above 10%:", np.count_nonzero(history[:, 1] > 0.1) * dt)
result = history[::20]
