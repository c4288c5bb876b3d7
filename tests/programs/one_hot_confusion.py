# One-hot encoding with an identity matrix, predictions by argmax, and a confusion matrix.
import numpy as np

rng = np.random.default_rng(191)
k = 4
truth = rng.integers(0, k, size=40)
onehot = np.eye(k)[truth]
noise = rng.normal(0, 0.6, size=onehot.shape)
logits = onehot + noise
pred = logits.argmax(axis=1)
print(onehot[:3])
conf = np.zeros((k, k), dtype=int)
np.add.at(conf, (truth, pred), 1)
print(conf)
print("same by bincount:", np.array_equal(conf, np.bincount(truth * k + pred, minlength=k * k).reshape(k, k)))
acc = np.trace(conf) / conf.sum()
recall = np.diag(conf) / conf.sum(axis=1)
precision = np.diag(conf) / np.maximum(conf.sum(axis=0), 1)
print(f"accuracy {acc:.3f}")
print("recall   ", np.round(recall, 3))
print("precision", np.round(precision, 3))
result = (conf, pred)
