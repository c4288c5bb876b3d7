"""Functions that need values (printing, saving) and answers from shapes
and dtypes alone (einsum_path, min_scalar_type), against NumPy's."""
import io

import numpy as np
import pytest

import fgraph
import fgraph.numpy as fnp


def test_printing_and_saving_evaluate():
    a = np.arange(12.0).reshape(3, 4) / 7
    t = fnp.asarray(a) + 0
    assert fnp.array2string(t, precision=3) == np.array2string(a, precision=3)
    assert np.array_repr(t) == np.array_repr(a) and fnp.array_str(t) == np.array_str(a)
    buf = io.BytesIO()
    fnp.save(buf, t)
    buf.seek(0)
    np.testing.assert_array_equal(fnp.load(buf), a)
    buf = io.BytesIO()
    np.savez(buf, x=t, y=a)  # NumPy's own function on a lazy array dispatches here
    buf.seek(0)
    with np.load(buf) as f:
        np.testing.assert_array_equal(f["x"], a)
    buf = io.StringIO()
    fnp.savetxt(buf, t, fmt="%.4f")
    assert buf.getvalue() == (np.savetxt(out := io.StringIO(), a, fmt="%.4f") or out.getvalue())


def test_answers_from_shapes_and_dtypes():
    a, b, c = np.ones((8, 3)), np.ones((3, 50)), np.ones((50, 2))
    ta, tb, tc = fnp.asarray(a), fnp.asarray(b), fnp.asarray(c)
    assert fnp.einsum_path("ij,jk,kl->il", ta, tb, tc) == np.einsum_path("ij,jk,kl->il", a, b, c)
    assert np.einsum_path("ij,jk,kl->il", ta, tb, tc, optimize="optimal")[0] == \
        np.einsum_path("ij,jk,kl->il", a, b, c, optimize="optimal")[0]
    with pytest.raises(fgraph.FgraphError):
        fnp.einsum_path("ij,jk->ik", ta, tc)  # mismatched dimension, as NumPy's ValueError
    assert fnp.min_scalar_type(fnp.ones(3, "int64")) == np.min_scalar_type(np.ones(3, "int64"))
    assert fnp.min_scalar_type(300) == np.min_scalar_type(300)
    with pytest.raises(fgraph.FgraphError, match="depends on its value"):
        fnp.min_scalar_type(fnp.asarray(3))
