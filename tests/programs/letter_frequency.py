# Letter statistics of a text through character codes: bincount, argsort, a Caesar shift and its decoding.
import numpy as np

text = "the quick brown fox jumps over the lazy dog while numpy counts every letter twice"
codes = np.array([ord(c) for c in text])
letters = codes[(codes >= ord("a")) & (codes <= ord("z"))] - ord("a")
freq = np.bincount(letters, minlength=26)
top = np.argsort(-freq, kind="stable")[:5]
print("most common:", [chr(ord("a") + k) for k in top], freq[top])
shift = 3
enc = codes.copy()
mask = (enc >= ord("a")) & (enc <= ord("z"))
enc[mask] = (enc[mask] - ord("a") + shift) % 26 + ord("a")
cipher = "".join(chr(c) for c in enc)
print(cipher[:40])
enc_freq = np.bincount(enc[mask] - ord("a"), minlength=26)
scores = np.array([np.dot(np.roll(enc_freq, -s), freq) for s in range(26)])
guess = int(np.argmax(scores))
print("guessed shift:", guess, "score:", scores[guess])
dec = enc.copy()
dec[mask] = (dec[mask] - ord("a") - guess) % 26 + ord("a")
print("".join(chr(c) for c in dec) == text)
result = (freq, enc)
