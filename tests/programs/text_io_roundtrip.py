# Saving and loading arrays through in-memory files: savetxt/loadtxt, genfromtxt, save/load.
import io
import numpy as np

data = np.array([[1.5, 2.0, 3.25], [4.0, 5.5, -6.0]])
buf = io.StringIO()
np.savetxt(buf, data, fmt="%.3f", delimiter=",", header="a,b,c")
text = buf.getvalue()
print(text)
back = np.loadtxt(io.StringIO(text), delimiter=",")
print(back, back.shape)
ints = np.loadtxt(io.StringIO("1 2\n3 4\n5 6\n"), dtype=int)
print(ints.sum(axis=0))
g = np.genfromtxt(io.StringIO("1,2,\n4,,6\n"), delimiter=",")
print(g, np.isnan(g).sum())
raw = io.BytesIO()
np.save(raw, data * 2)
raw.seek(0)
loaded = np.load(raw)
print(loaded, loaded.dtype)
z = io.BytesIO()
np.savez(z, first=data, second=ints)
z.seek(0)
with np.load(z) as npz:
    print(sorted(npz.files), npz["second"][-1])
result = (back, ints, loaded)
