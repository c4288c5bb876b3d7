# Principal components of correlated 2-D points through eigh of the covariance matrix.
import numpy as np

rng = np.random.default_rng(15)
z = rng.normal(size=(200, 2))
mix = np.array([[3.0, 0.0], [1.5, 0.5]])
pts = z @ mix.T + np.array([5.0, -2.0])
centred = pts - pts.mean(axis=0)
C = np.cov(centred, rowvar=False)
print("cov:\n", np.round(C, 4))
vals, vecs = np.linalg.eigh(C)
order = np.argsort(vals)[::-1]
vals, vecs = vals[order], vecs[:, order]
vecs *= np.sign(vecs[0])
print("variances:", np.round(vals, 4))
print("explained:", np.round(vals / vals.sum(), 4))
print("components:\n", np.round(vecs, 4))
proj = centred @ vecs
print("decorrelated:", np.allclose(np.cov(proj, rowvar=False), np.diag(vals)))
result = (np.round(vals, 8), np.round(vecs, 8))
