# A predator-prey simulation whose state lives in a dict of arrays updated in place.
import numpy as np

state = {"prey": np.full(5, 40.0), "pred": np.linspace(5, 15, 5)}
history = np.zeros((30, 2))
a, b, c, d, dt = 1.0, 0.1, 1.5, 0.075, 0.01
for t in range(30):
    prey, pred = state["prey"], state["pred"]
    dprey = a * prey - b * prey * pred
    dpred = d * prey * pred - c * pred
    state["prey"] += dt * dprey
    state["pred"] += dt * dpred
    history[t] = state["prey"].mean(), state["pred"].mean()
print(state["prey"].round(6))
print(state["pred"].round(6))
print(history[::10].round(5))
result = (state["prey"], state["pred"], history)
