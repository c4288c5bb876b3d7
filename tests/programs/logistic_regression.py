# Logistic regression by batch gradient descent on two Gaussian blobs.
import numpy as np

rng = np.random.default_rng(111)
n = 100
X = np.vstack([rng.normal(-1, 1, (n, 2)), rng.normal(1.5, 1, (n, 2))])
y = np.r_[np.zeros(n), np.ones(n)]
Xb = np.hstack([np.ones((2 * n, 1)), X])
w = np.zeros(3)
lr = 0.1
for it in range(300):
    p = 1 / (1 + np.exp(-Xb @ w))
    grad = Xb.T @ (p - y) / len(y)
    w -= lr * grad
    if it % 100 == 0:
        loss = -np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))
        print(f"iter {it:3d} loss {loss:.5f}")
pred = (Xb @ w > 0).astype(int)
print("weights:", np.round(w, 4))
print("accuracy:", (pred == y).mean())
tp = np.sum((pred == 1) & (y == 1))
fp = np.sum((pred == 1) & (y == 0))
print("precision:", round(tp / (tp + fp), 4))
result = (np.round(w, 8), pred)
