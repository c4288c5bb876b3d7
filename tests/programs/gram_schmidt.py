# Classical Gram-Schmidt orthonormalisation, writing columns one at a time.
import numpy as np

rng = np.random.default_rng(6)
A = rng.normal(size=(6, 4))
Q = np.zeros_like(A)
R = np.zeros((4, 4))
for j in range(4):
    v = A[:, j].copy()
    for i in range(j):
        R[i, j] = Q[:, i] @ A[:, j]
        v -= R[i, j] * Q[:, i]
    R[j, j] = np.linalg.norm(v)
    Q[:, j] = v / R[j, j]
print(R.round(5))
print("Q^T Q = I:", np.allclose(Q.T @ Q, np.eye(4)))
print("QR = A:", np.allclose(Q @ R, A))
result = (Q, R)
