# einsum for traces, matrix products, batched products and outer products.
import numpy as np

A = np.arange(9.0).reshape(3, 3)
B = np.arange(9.0, 18.0).reshape(3, 3)
print("trace:", np.einsum("ii", A))
print(np.einsum("ij,jk->ik", A, B))
X = np.arange(24.0).reshape(2, 3, 4)
Y = np.arange(8.0).reshape(2, 4)
print(np.einsum("bij,bj->bi", X, Y))
print(np.einsum("i,j->ij", np.arange(3), np.arange(4)))
print("row sums:", np.einsum("ij->i", A))
result = (np.einsum("ij,jk->ik", A, B), np.einsum("bij,bj->bi", X, Y))
