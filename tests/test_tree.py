"""fgraph.tree: flatten/unflatten round-trips nested outputs, and unflatten
leaves no reference cycle behind (results must be freed at once)."""
import gc
import weakref

from hypothesis import given, strategies as st

from fgraph.tree import flatten, unflatten

nested = st.recursive(
    st.integers(),
    lambda kids: st.one_of(st.lists(kids, max_size=4), st.lists(kids, max_size=4).map(tuple),
                           st.dictionaries(st.text(max_size=3), kids, max_size=4)),
    max_leaves=20)


@given(nested)
def test_round_trip(obj):
    leaves, structure = flatten(obj, lambda x: isinstance(x, int))
    assert unflatten(structure, leaves) == obj
    assert repr(unflatten(structure, leaves)) == repr(obj)  # list vs tuple, dict order


def test_deep_nesting():
    obj = 1
    for _ in range(200):
        obj = [obj]
    leaves, structure = flatten(obj, lambda x: isinstance(x, int))
    assert leaves == [1]
    back = unflatten(structure, leaves)
    for _ in range(200):
        back = back[0]
    assert back == 1


def test_results_are_freed_without_the_cycle_collector():
    class Leaf:
        pass

    leaf = Leaf()
    ref = weakref.ref(leaf)
    leaves, structure = flatten([leaf, (leaf, {"a": leaf})], lambda x: isinstance(x, Leaf))
    gc.disable()
    try:
        out = unflatten(structure, leaves)
        del out, leaves, leaf
        assert ref() is None
    finally:
        gc.enable()
