# Numerically stable softmax over rows, and the cross-entropy of some labels.
import numpy as np

rng = np.random.default_rng(14)
logits = rng.normal(0, 3, (6, 4))
z = logits - logits.max(axis=1, keepdims=True)
p = np.exp(z)
p /= p.sum(axis=1, keepdims=True)
print(p.round(4))
labels = np.array([0, 1, 2, 3, 0, 1])
loss = -np.log(p[np.arange(6), labels]).mean()
print(f"loss: {loss:.6f}")
print("predicted:", p.argmax(axis=1))
result = (p, loss)
