"""Reads through pending writes (``fgraph.engines.read_through``): element
and small slice reads of a large array written element by element give
NumPy's values without computing the array."""
import numpy as np
from hypothesis import given, note
from hypothesis import strategies as st

import fgraph.numpy as fnp
from fgraph.engines import read_through
from fgraph.symbol import known_value

SHAPE = (40, 50)  # above COMPUTE_NOW_ELEMENTS: writes stay pending


def _index(data):
    """An element, or a small basic region (slices, steps, reversed)."""
    def axis(n):
        return st.one_of(st.integers(-n, n - 1),
                         st.builds(slice, st.integers(-n, n), st.integers(-n, n), st.sampled_from([1, 2, -1])))
    return tuple(data.draw(axis(n)) for n in SHAPE[:data.draw(st.integers(1, 2))])


@given(st.data())
def test_reads_between_element_writes_match_numpy(data):
    want = np.arange(np.prod(SHAPE), dtype=np.int64).reshape(SHAPE)
    got = fnp.asarray(want.copy())
    written = []
    for step in range(data.draw(st.integers(1, 40))):
        kind = data.draw(st.sampled_from(["write", "write", "read", "read", "mask"]))
        key = _index(data) if not written or data.draw(st.booleans()) else data.draw(st.sampled_from(written))
        note(f"{kind} {key}")
        if kind == "write":
            written.append(key)
            v = data.draw(st.integers(-100, 100))
            want[key] = v
            got[key] = v
        elif kind == "mask":
            m = want % 7 == data.draw(st.integers(0, 6))
            want[m] = -1
            got[fnp.asarray(m)] = -1
        else:
            r = got[key]
            if r.size <= 64:
                np.testing.assert_array_equal(np.asarray(r), want[key])
    np.testing.assert_array_equal(np.asarray(got), want)


def test_an_element_read_leaves_the_writes_pending():
    d = fnp.full((100, 100), -1)
    float(d.sum())
    for k in range(10):
        d[k, k] = k
    assert int(d[3, 3]) == 3 and int(d[4, 5]) == -1 and int(d[99, 0]) == -1
    assert known_value(d.node) is None  # answered through the ten writes: the array is not computed


def test_a_read_past_the_limit_computes_the_array():
    d = fnp.zeros((100, 100))
    float(d.sum())
    for k in range(read_through.LIMIT + 5):
        d[0, k] = 1.0
    assert float(d[5, 5]) == 0.0
    np.testing.assert_array_equal(np.asarray(d)[0, :read_through.LIMIT + 5], 1.0)
