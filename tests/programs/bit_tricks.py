# Bit manipulation on integer arrays: masks, shifts, popcount by unpackbits, packbits, binary_repr.
import numpy as np

a = np.array([0, 1, 5, 12, 255, 170], dtype=np.uint8)
print(a & 0x0F, a | 0x80, a ^ 0xFF, ~a)
print(a >> 2, (a << 1).dtype, np.left_shift(a, 1))
bits = np.unpackbits(a[:, None], axis=1)
print(bits)
print("popcount:", bits.sum(axis=1), np.bitwise_count(a))
print("packed:", np.packbits(bits[:, ::-1], axis=1).ravel())
print([np.binary_repr(int(v), width=8) for v in a[:3]])
print(np.binary_repr(-5, width=8), np.base_repr(255, 16))
i = np.arange(8)
print("gray:", i ^ (i >> 1))
print("power of two:", (i & (i - 1)) == 0)
print(np.bitwise_and.reduce(np.array([7, 13, 15])), np.bitwise_or.reduce(a), np.bitwise_xor.accumulate(a))
result = (bits, i ^ (i >> 1), np.bitwise_xor.accumulate(a))
