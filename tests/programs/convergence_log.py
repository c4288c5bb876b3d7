# Fixed-point iteration that logs its checks as JSON and returns the final verdict.
import json
import numpy as np

A = np.array([[0.5, 0.1, 0.0], [0.2, 0.3, 0.1], [0.0, 0.2, 0.4]])
b = np.array([1.0, 2.0, 3.0])
x = np.zeros(3)
log = []
for step in range(100):
    x_new = A @ x + b
    done = np.allclose(x_new, x, rtol=0, atol=1e-10)
    log.append({"step": step, "done": done, "change": float(np.abs(x_new - x).max())})
    x = x_new
    if done:
        break
print(json.dumps(log[:2]))
print(json.dumps(log[-1]))
print("iterations:", len(log), "x:", np.round(x, 8))
exact = np.linalg.solve(np.eye(3) - A, b)
verdict = np.allclose(x, exact), np.array_equal(np.round(x, 6), np.round(exact, 6)), np.array_equiv(x[:1], x[0])
print(verdict)
pending = np.array([3.0, 7.0])
print("sentinel check:", pending == None, pending != None)
result = verdict[0]
