# Eigen-decomposition of a symmetric matrix, checked by reconstruction.
import numpy as np

rng = np.random.default_rng(4)
B = rng.normal(size=(5, 5))
A = (B + B.T) / 2
w, V = np.linalg.eigh(A)
print("eigenvalues:", w.round(6))
recon = V @ np.diag(w) @ V.T
print("reconstructs:", np.allclose(recon, A))
print("orthonormal:", np.allclose(V.T @ V, np.eye(5)))
ev = np.linalg.eigvals(A)
print("sorted eigvals agree:", np.allclose(np.sort(ev.real), w))
result = w
