# Fibonacci numbers by repeated squaring of an integer matrix, reduced modulo a prime.
import numpy as np

MOD = 1_000_000_007

def mat_mult(a, b):
    return (a @ b) % MOD

def mat_pow(m, e):
    out = np.eye(2, dtype=np.int64)
    while e > 0:
        if e & 1:
            out = mat_mult(out, m)
        m = mat_mult(m, m)
        e >>= 1
    return out

F = np.array([[1, 1], [1, 0]], dtype=np.int64)
fibs = [int(mat_pow(F, k)[0, 1]) for k in range(1, 15)]
print(fibs)
big = mat_pow(F, 1000)
print("F(1000) mod p:", big[0, 1], big.dtype)
print("small power matches:", np.array_equal(mat_pow(F, 20), np.linalg.matrix_power(F, 20)))
result = (big, np.array(fibs))
