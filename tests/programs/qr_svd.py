# QR and SVD of a matrix; a rank-2 approximation from the SVD.
import numpy as np

rng = np.random.default_rng(7)
A = rng.normal(size=(6, 5))
Q, R = np.linalg.qr(A)
print("QR ok:", np.allclose(Q @ R, A), "R upper:", np.allclose(np.triu(R), R))
U, s, Vt = np.linalg.svd(A, full_matrices=False)
print("singular values:", s.round(6))
A2 = (U[:, :2] * s[:2]) @ Vt[:2]
err = np.linalg.norm(A - A2)
print(f"rank-2 error: {err:.6f} vs {np.sqrt((s[2:] ** 2).sum()):.6f}")
result = (s, A2)
