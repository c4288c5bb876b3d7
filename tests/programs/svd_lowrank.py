# Low-rank approximation with the SVD; rank, pseudo-inverse and the Eckart-Young error.
import numpy as np

rng = np.random.default_rng(16)
U0 = rng.normal(size=(6, 2))
V0 = rng.normal(size=(2, 5))
A = U0 @ V0 + 0.01 * rng.normal(size=(6, 5))
U, s, Vt = np.linalg.svd(A, full_matrices=False)
print(U.shape, s.shape, Vt.shape)
print("singular values:", np.round(s, 4))
A2 = U[:, :2] * s[:2] @ Vt[:2]
err = np.linalg.norm(A - A2, 2)
print(f"rank-2 error {err:.6f} vs s[2] {s[2]:.6f}")
print("numerical rank:", np.linalg.matrix_rank(A, tol=0.1), np.linalg.matrix_rank(A))
P = np.linalg.pinv(A)
print("pinv shape:", P.shape, "A P A = A:", np.allclose(A @ P @ A, A))
print("energy kept:", round(float((s[:2] ** 2).sum() / (s ** 2).sum()), 6))
result = (np.round(s, 8), np.round(np.abs(A2), 8))
